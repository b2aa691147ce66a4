"""FastSAC agent configurations for Go2-Rough and Go2-Flat (``--agent fast_sac_cfg_entry_point``).

The learner (:mod:`go2_locomotion.fast_sac`) runs inside RSL-RL's runner as its algorithm: one iteration
collects ``num_steps_per_env`` steps of every environment into the replay buffer, then takes ``gradient_steps``
gradient steps on batches of ``batch_size`` drawn from it. Update-to-data ratio (replayed transitions per collected
one) = gradient_steps x batch_size / (num_envs x num_steps_per_env).

Two settings, chosen with the physics by the same selector: the GPU default (4096 environments) and ``presets=cpu``
(with ``--num_envs 512``, the CPU recipe's count). The networks are the same in both, so a checkpoint plays back
under either. ``presets=privileged_critic`` points the critic at the privileged ``critic`` group; a PPO teacher can
fill the replay first (``teacher_*``): docs/training.md "A second learner: FastSAC".
"""

import math
from dataclasses import MISSING

from isaaclab.utils import configclass
from isaaclab_rl.rsl_rl import RslRlBaseRunnerCfg, RslRlMLPModelCfg
from isaaclab_tasks.utils import PresetCfg, preset

from ..tasks.velocity_env_cfg import PRIVILEGED_CRITIC
from .rsl_rl_ppo_cfg import Go2FlatPPORunnerCfg, Go2RoughPPORunnerCfg

_LEARNER = "go2_locomotion.fast_sac"
"""The learner's package (named, not imported: the configs stay importable without torch and RSL-RL)."""


@configclass
class SquashedGaussianDistributionCfg(RslRlMLPModelCfg.DistributionCfg):
    """The actor's output: ``action_scale * tanh(u)``, ``u ~ N(mean, std)``, std from the network (log space)."""

    class_name: str = f"{_LEARNER}:SquashedGaussianDistribution"
    init_std: float = 0.25
    """Initial std of ``u`` before the squash [-]: with ``action_scale`` 4, about 1 raw action unit (0.25 rad) at
    the centre, PPO's initial noise (its ``init_std`` 1.0)."""
    std_type: str = "log"
    std_range: tuple[float, float] = (math.exp(-5.0), math.exp(2.0))
    """Clamp of the std [-] (log std in [-5, 2], the usual SAC bounds)."""
    action_scale: float = 4.0
    """Raw action range +-4: times the joint action's 0.25 rad scale, +-1 rad about the default pose, wider than
    the offsets a Go2 trot uses (the PPO policy's)."""


@configclass
class TwinQCriticCfg(RslRlMLPModelCfg):
    """Twin Q networks ``Q(s, a)`` with LayerNorm after every hidden layer (an RSL-RL model config: Isaac Lab's
    config migration treats it as one)."""

    class_name: str = f"{_LEARNER}:TwinQCritic"
    activation: str = "elu"
    obs_normalization: bool = True
    layer_norm: bool = True
    """LayerNorm after every hidden layer (the FastTD3 / FastSAC critics')."""
    num_atoms: int = 1
    """1: each critic outputs Q. More: a distributional critic (C51, FastTD3's and FastSAC's), a categorical return
    distribution on ``num_atoms`` evenly spaced values from ``v_min`` to ``v_max``, trained by cross-entropy to the
    projected soft target; the actor follows its mean. The references use 101."""
    v_min: float = -5.0
    v_max: float = 5.0
    """Support of a distributional critic [return units]. Go2 rewards are scaled by the 0.02 s step: a step earns
    ~-0.05 to +0.1 and a fall costs 4 (the termination penalty), so returns at gamma 0.97-0.99 stay within +-5;
    returns outside are clamped to the ends."""


@configclass
class FastSacAlgorithmCfg:
    """FastSAC's learner settings; domains are checked by the preflight (``scripts/train.py --check``)."""

    class_name: str = f"{_LEARNER}:FastSAC"
    gamma: float = 0.99
    """Discount [-], finite in [0, 1]: PPO's, so both learners optimise the same return."""
    n_step: int = 1
    """Steps summed into each critic target before it bootstraps (n-step returns), a positive whole number; 1: the
    one-step target of SAC. Larger carries rewards back faster (FastTD3 uses 1-3) at the cost of bias: the steps
    after the first are the behaviour policy's."""
    critic_rule: str = "clipped"
    """How the twin critics combine (a name, no units), ``"clipped"`` or ``"independent"``. ``"clipped"`` (clipped
    double Q, SAC's and FastTD3's): both critics learn toward the target critic with the lower value (per sample; of
    distributional critics, the distribution with the lower mean) and the actor maximises the lower of the two Q
    values, a pessimism that counters the overestimation a policy builds up by chasing critic errors. ``"independent"``
    (holosoma's FastSAC): each critic learns toward its own target critic (its own projected distribution) and the
    actor maximises the mean of the two, less pessimistic. ``"clipped"`` is the default: with ``"independent"`` a cloned
    gait broke as fast and the run ended worse (run E2, docs/learning.md "FastSAC with a PPO teacher")."""
    tau: float = 0.05
    """Polyak rate of the target critics per gradient step, in (0, 1]."""
    actor_learning_rate: float = 3e-4
    critic_learning_rate: float = 3e-4
    alpha_lr: float = 1e-3
    """Learning rate of the log-temperature; positive finite when ``tune_alpha``. Adam moves the logarithm by about
    this much per gradient step: x e in ~60 CPU iterations."""
    init_alpha: float = 0.001
    """Initial entropy temperature, positive finite (its logarithm is stored). The Go2 rewards are scaled by the
    policy step (0.02 s): a step earns ~0.01-0.1, so the entropy bonus (alpha x ~17 nats at the initial std) must
    start near 0.001 to stay below the task's reward; at 0.01 it was ~0.2 per step and the first CPU run (stopped
    at 0.3 M transitions) learned to fall (base contact ended 99 % of episodes)."""
    tune_alpha: bool = True
    """Tune the temperature towards ``target_entropy``."""
    target_entropy: float | None = None
    """Target entropy of the squashed policy [nats]; ``None``: minus the action width (-12 for the Go2)."""
    batch_size: int = MISSING
    """Transitions per gradient step."""
    buffer_size: int = MISSING
    """Replay capacity in transitions, over all environments of the process."""
    learning_starts: int = MISSING
    """Transitions stored before the first gradient step."""
    gradient_steps: int = MISSING
    """Gradient steps per iteration."""
    policy_frequency: int = 1
    """Actor and temperature step once every this many critic steps."""
    max_grad_norm: float = 10.0
    teacher_checkpoint: str | None = None
    """An RSL-RL PPO checkpoint of the same task whose actor (``agent.teacher``, reading the actor's ``policy`` group)
    acts for the first ``teacher_iterations`` iterations: a path, or ``pretrained`` (the task's shipped policy, as
    ``--checkpoint pretrained``; ``scripts/train.py`` writes its path into the config). ``None``: no teacher. Only
    its ``actor_state_dict`` is read, and FastSAC's checkpoints leave the teacher out: a resume inside the teacher
    phase loads it again from here; after the phase it is loaded but unused (``teacher_iterations=0
    behavior_cloning_steps=0`` on the resume's command line drops it)."""
    teacher_iterations: int = 0
    """Iterations from a run's iteration 0 in which the teacher acts and no gradient step is taken, so the replay
    fills with its transitions (num_envs x num_steps_per_env per iteration); an integer >= 0, 0: no teacher (today's
    learner, bit for bit). 125 gives every environment one 20 s episode (1,000 steps / 8 per iteration)."""
    teacher_action_noise_std: float = 0.3
    """Std of the Gaussian noise added to the teacher's mean action [raw action units, x 0.25 rad], a finite number
    >= 0; the sum, clamped to the actor's range (+-``action_scale``), is what the environments execute and the replay
    stores. About half the shipped Go2-Flat PPO policy's own final std (0.39-0.77): actions around the teacher's for
    the critics to compare, small enough that the gait it walked under in training holds."""
    behavior_cloning_steps: int = 0
    """Adam steps at the end of the teacher phase, before the first RL gradient step, that fit the actor to the
    teacher on ``batch_size`` replayed transitions each (``behavior_cloning_learning_rate``, an optimiser of its own):
    its deterministic action (``action_scale * tanh(mean)``) to the teacher's clamped mean action (mean squared error,
    first and last logged) and its std to the executed actions' spread (their likelihood with the mean held; the
    clone's std in action units is logged), so the clone explores as the teacher did. Without the std the clone kept
    its initial std (~1 action unit, 3x the teacher's noise): docs/learning.md, "FastSAC with a PPO teacher". An
    integer >= 0, at most with a teacher. 0: the actor starts fresh."""
    behavior_cloning_learning_rate: float | None = None
    """Adam's learning rate of the behaviour cloning, a finite number > 0; ``None``: ``actor_learning_rate``. Set
    it to clone at the usual rate when ``actor_learning_rate`` is lowered for the RL steps that follow."""
    critic_warmup_iterations: int = 0
    """Iterations right after the teacher's phase (from iteration 0 without a teacher) in which only the critics
    step; the actor and the temperature stay as they are, and the actor acts. An integer >= 0; 0: the actor steps
    from the first gradient step (as before). The cloned actor of run E1 walked (default grid xy 0.11 m/s, 2 of 52
    falls) until its first FastSAC iteration beside fresh critics, after which 21 of 52 fell (docs/learning.md,
    "FastSAC with a PPO teacher")."""
    actor_teacher_weight: float = 0.0
    """Weight of a pull of the actor toward the teacher in every actor loss (TD3+BC, Fujimoto & Gu 2021, "A
    Minimalist Approach to Offline Reinforcement Learning"), a finite number >= 0 [1 / action units^2]; 0: off (the
    learner as before). When > 0 the actor loss is ``lambda * mean(alpha log pi - Q) + actor_teacher_weight * d``,
    ``d`` the mean over batch and joints of the squared difference between the actor's deterministic (executed)
    action and the teacher's clamped mean action at the replayed states (logged as ``actor_teacher_distance``), and
    ``lambda = 2.5 / mean|Q|`` (detached: TD3+BC's normalisation, so the weight means the same at any return scale).
    Why: the cloned gait broke at the actor's first off-policy steps (docs/learning.md, "FastSAC with a PPO
    teacher"); the pull keeps the actor near the teacher's actions, where the replay holds data. Needs a teacher
    (``teacher_checkpoint``), which is then loaded even with ``teacher_iterations`` 0."""
    residual_on_teacher: bool = False
    """Act with the teacher's mean action plus a learned correction: the executed action is the teacher's clamped
    mean plus ``residual_scale`` times the actor's squashed output, clamped to ``+-action_scale``; the critics see
    (and the replay stores) that total, and the policy's log-density is the total's (the scale's Jacobian included,
    so ``target_entropy`` means the same). The mean half of the actor's last layer starts at zero, so its first
    policy is the teacher (plus the actor's noise). Why: the cloned gait broke when the actor moved away from the
    teacher (docs/learning.md, "FastSAC with a PPO teacher"); a residual starts at the teacher and its reach is
    bounded. Needs a teacher (``teacher_checkpoint``; loaded even with ``teacher_iterations`` 0), excludes
    ``behavior_cloning_steps`` (the actor already starts as the teacher) and ``action_bounds`` other than
    ``"scale"``. Play, evaluation and export refuse its checkpoints (the teacher is not in them). Residual RL
    (Johannink et al. 2019, Silver et al. 2018)."""
    residual_scale: float = 0.25
    """With ``residual_on_teacher``: the factor on the actor's squashed output (``+-action_scale``), a finite
    number > 0 [-]; 0.25 with ``action_scale`` 4 lets the correction reach +-1 raw action unit (+-0.25 rad)."""
    actor_lr_warmup_steps: int = 0
    """Actor gradient steps over which the actor's learning rate rises linearly from 0 to ``actor_learning_rate``
    (step k of N at k / N of it), an integer >= 0; 0: off (the learner as before). Why: Adam's first steps move
    every weight by about the learning rate whatever the gradient's size (its update is normalised by the
    gradient's running magnitude), a jolt to a cloned actor (docs/learning.md, "FastSAC with a PPO teacher": the
    gait broke within the first actor iterations). Counted from Adam's own step count, so a resume continues it."""
    action_bounds: str = "scale"
    """The box the squash maps the actor's actions onto (a name, no units): ``"scale"`` (``+-action_scale`` on
    every joint, as before); ``"joint_limits"``: per joint, the robot's position limits in action units,
    ``(limit - standing pose) / 0.25``, read from the environment when the actor is built (ETH's RSL-RL SAC bounds
    its actions by the joint limits); or ``"teacher_percentiles"``: per joint, the 2.5 % and 97.5 % percentiles of
    the actions stored in the replay during the teacher's phase (its mean plus noise), fitted when the phase ends
    (before behaviour cloning), at least 0.1 action units wide (widened about its centre). Either box is saved with
    the actor: play, evaluation and export take it from the checkpoint whatever this setting says. Why: a +-4 box is
    far wider than a gait's joint offsets, so the actor's noise and its critics' errors reach actions no transition
    holds; A. Raffin, "Getting SAC to Work on a Massive Parallel Simulator" (2025), bounds SAC's actions by the range
    a PPO policy uses. ``"teacher_percentiles"`` needs ``teacher_iterations`` > 0; neither box goes with
    ``residual_on_teacher``. The Go2's joint-limit box, from ``assets/go2_description.py``'s ranges and the standing
    pose: left hips [-4.59, 3.79] (right mirrored), front thighs [-9.48, 10.76], rear thighs [-6.09, 14.15], calves
    [-4.89, 2.65]: wider than +-4 where a joint reaches far, narrower where it cannot."""


@configclass
class FastSacSettingsCfg(PresetCfg):
    """The learner's setting per machine, selected with the physics (``presets=cpu``)."""

    default = FastSacAlgorithmCfg(batch_size=8192, buffer_size=2_000_000, learning_starts=65_536, gradient_steps=16)
    """GPU: 4096 envs x 8 steps = 32,768 transitions per iteration, 16 x 8,192 replayed: update-to-data 4."""
    cpu = FastSacAlgorithmCfg(batch_size=1024, buffer_size=1_000_000, learning_starts=8_192, gradient_steps=16)
    """CPU (``--num_envs 512``): 4,096 transitions per iteration, 16 x 1,024 replayed: update-to-data 4; a gradient
    step of Go2-Flat's networks costs ~30-40 ms on 2 cores, about half the iteration's collection time."""


@configclass
class Go2RoughFastSacRunnerCfg(RslRlBaseRunnerCfg):
    """FastSAC for Go2-Rough: [512, 256, 128] actor (PPO's), [512, 256, 128] LayerNorm twin critics."""

    class_name: str = "OnPolicyRunner"
    """RSL-RL's runner loop drives the learner (collect, then update); the package registers its subclass for it."""
    num_steps_per_env = 8
    max_iterations = 6000
    save_interval = 100
    experiment_name = "go2_rough_fast_sac"
    empirical_normalization = False
    stall_timeout_s: float = 600.0
    """As for PPO: seconds without a finished iteration before the run exits with code 75 (0: off)."""
    obs_groups = {"actor": ["policy"], "critic": preset(default=["policy"], **{PRIVILEGED_CRITIC: ["critic"]})}
    """The actor reads ``policy``; the critic too, or with ``presets=privileged_critic`` the environment's privileged
    ``critic`` group (the policy's terms without noise, the foot contact forces, the trunk's added mass)."""
    actor = RslRlMLPModelCfg(
        hidden_dims=[512, 256, 128],
        activation="elu",
        obs_normalization=True,
        distribution_cfg=SquashedGaussianDistributionCfg(),
    )
    critic = TwinQCriticCfg(hidden_dims=[512, 256, 128])
    algorithm = FastSacSettingsCfg()
    teacher: RslRlMLPModelCfg = Go2RoughPPORunnerCfg().actor
    """The network of ``algorithm.teacher_checkpoint``: the task's PPO actor, as it is, so its ``actor_state_dict``
    loads with ``strict=True``; it reads the actor's observation groups and acts by its mean."""


@configclass
class Go2FlatFastSacRunnerCfg(Go2RoughFastSacRunnerCfg):
    """FastSAC for Go2-Flat: [128, 128, 128] actor (PPO's), [256, 256, 128] LayerNorm twin critics."""

    def __post_init__(self):
        super().__post_init__()
        self.max_iterations = 1500
        self.experiment_name = "go2_flat_fast_sac"
        self.actor.hidden_dims = [128, 128, 128]
        self.critic.hidden_dims = [256, 256, 128]
        self.teacher = Go2FlatPPORunnerCfg().actor
