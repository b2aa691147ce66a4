"""RSL-RL PPO runner configurations for Go2-Rough and Go2-Flat.

Rollout geometry with the env default of 4096 environments: 4096 x 24 = 98,304 transitions per iteration, 4
mini-batches of 24,576, 5 epochs: 20 optimizer steps per iteration.
"""

from isaaclab.utils import configclass
from isaaclab_rl.rsl_rl import RslRlMLPModelCfg, RslRlOnPolicyRunnerCfg, RslRlPpoAlgorithmCfg, RslRlSymmetryCfg

from ..catalog import GO2_FLAT, GO2_ROUGH, GO2_ROUGH_BLIND
from ..tasks.mdp.symmetry import mirror_left_right

GO2_SYMMETRY = RslRlSymmetryCfg(
    use_data_augmentation=False,
    use_mirror_loss=False,
    data_augmentation_func=mirror_left_right,
    mirror_loss_coeff=1.0,
)
"""The Go2's left-right mirror (``tasks/mdp/symmetry.py``), off for Go2-Rough, where the warm start from Go2-Flat
learned less per sample with it, and on for Go2-Flat (:class:`Go2FlatPPORunnerCfg`), where from scratch it tracked
better per sample and per hour in 3 of 3 seeds (docs/learning.md, *Symmetry augmentation*). Off, it is not
passed to RSL-RL at all (``training/session.without_idle_symmetry``: logging the mirror loss alone costs learning
time). ``agent.algorithm.symmetry_cfg.use_data_augmentation=true`` doubles every mini-batch with its mirror;
``use_mirror_loss=true`` adds ``mirror_loss_coeff`` x the mean squared difference between the action on a mirrored
observation and the mirrored action. RSL-RL refuses either with a recurrent actor or critic."""


@configclass
class Go2PpoAlgorithmCfg(RslRlPpoAlgorithmCfg):
    """Isaac Lab's PPO settings for the package's :class:`~go2_locomotion.training.ppo.Go2PPO` (RSL-RL's PPO with a
    critic warm-up)."""

    class_name: str = "go2_locomotion.training.ppo:Go2PPO"
    critic_warmup_iterations: int = 0
    """Iterations, from a run's iteration 0, whose updates train the critic alone (actor and learning rate held).
    For a warm-started actor with a fresh critic, e.g. ``--warm_start`` from a distillation checkpoint; 0: off."""


@configclass
class Go2RoughPPORunnerCfg(RslRlOnPolicyRunnerCfg):
    """PPO for Go2-Rough: [512, 256, 128] ELU actor and critic, 1500 iterations."""

    num_steps_per_env = 24
    max_iterations = 1500
    save_interval = 50
    experiment_name = GO2_ROUGH.experiment
    stall_timeout_s: float = 600.0
    """Seconds without a finished iteration before the run exits with code 75 for ``--resume auto`` (0: off); an
    iteration takes 1-20 s on a GPU or with the CPU recipe, and OvPhysX's step can hang on rough terrain."""
    warm_start_noise_std: float | None = None
    """The actor's action noise std [raw action units, x 0.25 rad] right after ``--warm_start`` (None: the
    checkpoint's). A distilled student carries the distillation's 0.1, with which PPO barely explores
    (docs/learning.md, *A critic warm-up, then a learning rate the student can take*); a fresh actor starts at
    ``actor.distribution_cfg.init_std``. Ignored when a run resumes (its own std is in its checkpoint)."""
    obs_groups = {"actor": ["policy"], "critic": ["policy"]}
    actor = RslRlMLPModelCfg(
        hidden_dims=[512, 256, 128],
        activation="elu",
        obs_normalization=False,
        distribution_cfg=RslRlMLPModelCfg.GaussianDistributionCfg(init_std=1.0),
    )
    critic = RslRlMLPModelCfg(hidden_dims=[512, 256, 128], activation="elu", obs_normalization=False)
    algorithm = Go2PpoAlgorithmCfg(
        value_loss_coef=1.0,
        use_clipped_value_loss=True,
        clip_param=0.2,
        entropy_coef=0.01,
        num_learning_epochs=5,
        num_mini_batches=4,
        learning_rate=1.0e-3,
        schedule="adaptive",
        gamma=0.99,
        lam=0.95,
        desired_kl=0.01,
        max_grad_norm=1.0,
        symmetry_cfg=GO2_SYMMETRY,
    )


@configclass
class Go2FlatPPORunnerCfg(Go2RoughPPORunnerCfg):
    """PPO for Go2-Flat: [128, 128, 128] actor and critic, 300 iterations, symmetry augmentation on."""

    def __post_init__(self):
        super().__post_init__()
        self.max_iterations = 300
        self.experiment_name = GO2_FLAT.experiment
        self.actor.hidden_dims = [128, 128, 128]
        self.critic.hidden_dims = [128, 128, 128]
        # every mini-batch followed by its mirror: from scratch on the CPU recipe, 3 of 3 seeds tracked within
        # 0.09 m/s by 8 M transitions (0.16-0.19 without) at 0.83-0.87x the throughput (docs/learning.md)
        self.algorithm.symmetry_cfg.use_data_augmentation = True


@configclass
class Go2RoughBlindPPORunnerCfg(Go2RoughPPORunnerCfg):
    """PPO for Go2-Rough-Blind: the actor reads the blind ``policy`` group, the critic the privileged ``critic`` group
    (asymmetric actor-critic); Go2-Rough's networks and algorithm otherwise."""

    def __post_init__(self):
        super().__post_init__()
        self.experiment_name = GO2_ROUGH_BLIND.experiment
        self.obs_groups = {"actor": ["policy"], "critic": ["critic"]}
