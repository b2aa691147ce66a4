"""Teacher-student distillation of Go2-Rough-Blind (``--agent distillation_cfg_entry_point``): RSL-RL's
``Distillation`` algorithm and ``DistillationRunner``.

The teacher is the perceptive Go2-Rough policy reading the ``teacher`` group (Go2-Rough's policy observation, 237
inputs); the student is the blind actor reading the ``policy`` group (10 frames of 47 = 470 inputs). Each iteration
the student acts (DAgger: the states are the student's own), the teacher labels every step with its action, and the
student regresses onto those labels. The student has the network of :class:`Go2RoughBlindPPORunnerCfg`'s actor, so
its checkpoint starts PPO fine-tuning with the privileged critic (``train.py --task Go2-Rough-Blind --warm_start
<distillation checkpoint>``).
"""

from isaaclab.utils import configclass
from isaaclab_rl.rsl_rl import RslRlDistillationAlgorithmCfg, RslRlDistillationRunnerCfg, RslRlMLPModelCfg

from ..catalog import GO2_ROUGH_BLIND
from .rsl_rl_ppo_cfg import Go2RoughBlindPPORunnerCfg, Go2RoughPPORunnerCfg


@configclass
class Go2RoughBlindDistillationRunnerCfg(RslRlDistillationRunnerCfg):
    """Distil the shipped Go2-Rough policy into Go2-Rough-Blind's blind actor."""

    num_steps_per_env = 24
    """Steps per environment per iteration: PPO's, so the rollout (and its storage) has the shape PPO's has."""
    max_iterations = 300
    """Iterations [-]: 300 x 24 = 7,200 policy steps per environment, about 7 episodes of 20 s (1,000 steps); Isaac
    Lab's ANYmal-D distillation runs 300 too. A first figure, not yet measured on the Go2: behaviour cloning onto
    a fixed teacher needs far fewer samples than PPO's 1,500 iterations, and PPO fine-tunes the student after."""
    save_interval = 50
    experiment_name = f"{GO2_ROUGH_BLIND.experiment}_distillation"
    stall_timeout_s: float = 600.0
    """As for PPO: seconds without a finished iteration before the run exits with code 75 (0: off)."""
    obs_groups = {"student": ["policy"], "teacher": ["teacher"]}
    """The student reads what a Go2 measures; the teacher reads exactly what Go2-Rough's policy was trained on."""
    student = RslRlMLPModelCfg(
        hidden_dims=Go2RoughBlindPPORunnerCfg().actor.hidden_dims,
        activation="elu",
        obs_normalization=False,
        distribution_cfg=RslRlMLPModelCfg.GaussianDistributionCfg(init_std=0.1),
    )
    """Go2-Rough-Blind's PPO actor ([512, 256, 128] ELU, no normaliser, Gaussian output), so the student's state dict
    loads as that actor. ``init_std`` 0.1 [raw action units, x 0.25 rad]: the rollouts sample the student with this
    noise (the loss trains the mean only, the std stays), small enough that the robot keeps its gait and the visited
    states stay near the student's own (Isaac Lab's ANYmal-D distillation uses 0.1); PPO fine-tuning starts from it."""
    teacher = Go2RoughPPORunnerCfg().actor
    """Go2-Rough's PPO actor as it is, so RSL-RL's ``Distillation.load`` takes a Go2-Rough checkpoint's
    ``actor_state_dict`` (the shipped one by default) with ``strict=True``; it acts by its mean."""
    algorithm = RslRlDistillationAlgorithmCfg(
        num_learning_epochs=2,
        learning_rate=1.0e-3,
        gradient_length=12,
        max_grad_norm=1.0,
    )
    """Two passes over each rollout (the teacher's labels do not go stale, so reusing them is free of PPO's
    off-policy limit); a gradient step every 12 steps of the rollout: 2 x 24 / 12 = 4 Adam steps per iteration,
    each over 12 x num_envs labelled transitions, none left over (RSL-RL warns when epochs x num_steps_per_env is
    not divisible by gradient_length). Learning rate 1e-3: PPO's starting rate and Isaac Lab's distillation
    default. Gradient norm clipped at 1.0, PPO's."""
