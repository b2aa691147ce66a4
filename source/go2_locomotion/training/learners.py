"""The package's learners, one description each (:class:`Learner`): how its agent configs and its checkpoints are
recognised, its preflight checks and iteration geometry, what play loads from its checkpoints, whether it runs on
several ranks, what ``--warm_start`` gives it, and its runner.

Whatever depends on the learner asks :func:`learner_of` (an agent config, by its runner ``class_name`` and the class
its ``algorithm.class_name`` resolves to), :func:`learner_of_checkpoint` (a checkpoint, by its keys) or
:func:`learner_of_algorithm` (a live runner's algorithm); no other module tells learners apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..catalog import DISTILLATION_ENTRY_POINT, FAST_SAC_ENTRY_POINT, PPO_ENTRY_POINT
from ..dotted import MissingField, lookup
from ..errors import UsageError
from .preflight import checks, geometry

# Imported inside functions: RSL-RL's callable resolution and the algorithm classes (torch: heavy), needed only when
# an agent config or a live algorithm is recognised.

RUNNER_CLASSES = {
    "OnPolicyRunner": "go2_locomotion.training.runner:Go2OnPolicyRunner",
    "DistillationRunner": "go2_locomotion.training.runner:Go2DistillationRunner",
}
"""RSL-RL's runner name (an agent config's ``class_name``) -> the package's runner for it, ``module:Class``: one per
loop, shared by the learners that loop drives."""


@dataclass(frozen=True, kw_only=True)
class Learner:
    """One learning algorithm as the package runs it."""

    name: str
    """How messages name it."""
    entry_point: str
    """Its ``--agent`` key (the tasks register one agent config per learner they offer)."""
    runner: str = "OnPolicyRunner"
    """Its agent configs' ``class_name``: RSL-RL's name of the loop that drives it, a key of :data:`RUNNER_CLASSES`
    (and of :data:`~.plan.RUNNERS`); by default RSL-RL's on-policy loop, which also runs the off-policy FastSAC."""
    algorithm: str
    """Its algorithm class, ``module:Class``: an agent config whose ``algorithm.class_name`` resolves to it (or to a
    subclass), with ``class_name`` :attr:`runner`, trains with this learner."""
    checkpoint_keys: frozenset[str]
    """Keys its checkpoints hold; a checkpoint belongs to the learner with the most of them, all present."""
    policy: str
    """The model that acts in play, evaluation and export: saved as ``<policy>_state_dict``, loaded by RSL-RL's
    ``load_cfg = {policy: True}`` (that model and its observation normaliser, nothing of the training state)."""
    plays: tuple[str, ...]
    """Learners whose checkpoints' policies this one's policy plays (same network family: keys and shapes are then
    checked)."""
    supports_ranks: bool
    """Runs under ``--distributed`` (several processes whose gradients are averaged)."""
    warm_start_from: tuple[str, ...]
    """Learners whose checkpoints ``--warm_start`` takes; empty: ``--warm_start`` is refused."""
    teacher: bool
    """Learns from a teacher policy: ``--warm_start`` names it (a checkpoint of the catalog's teacher task, default its
    shipped one) and a new run refuses to start without it."""
    check: Callable
    """``check(checker, num_envs, num_steps)``: its preflight checks (:mod:`.preflight.checks`)."""
    geometry: Callable
    """``geometry(env_cfg, agent_cfg, observation_widths, action_width, world_size)``: one iteration's shape
    (:mod:`.preflight.geometry`)."""

    @property
    def runner_class(self) -> str:
        """The package's runner for :attr:`runner`, ``module:Class``."""
        return RUNNER_CLASSES[self.runner]

    @property
    def policy_key(self) -> str:
        """The checkpoint key of the acting model's state dict."""
        return f"{self.policy}_state_dict"

    @property
    def policy_load_cfg(self) -> dict[str, bool]:
        """RSL-RL's ``load_cfg`` that loads the acting model alone (play, evaluation, export)."""
        return {self.policy: True}

    @property
    def agent_flag(self) -> str:
        """How a command line chooses this learner."""
        if self.entry_point == PPO_ENTRY_POINT:
            return f"leave out --agent ({self.name} is the default)"
        return f"pass --agent {self.entry_point}"

    def algorithm_class(self) -> type:
        """The algorithm class (imported: torch and RSL-RL)."""
        from rsl_rl.utils import resolve_callable  # RSL-RL: heavy

        return resolve_callable(self.algorithm)


PPO = Learner(
    name="PPO",
    entry_point=PPO_ENTRY_POINT,
    algorithm="rsl_rl.algorithms:PPO",
    checkpoint_keys=frozenset({"actor_state_dict"}),
    policy="actor",
    plays=("PPO", "Distillation"),
    supports_ranks=True,
    warm_start_from=("PPO", "Distillation"),
    teacher=False,
    check=checks.check_ppo,
    geometry=geometry.ppo_geometry,
)
"""RSL-RL's PPO, every task's default. ``--warm_start`` takes another task's PPO checkpoint (embedded, the catalog's
``warm_start_from``) or a distillation checkpoint of the same task (its student becomes the actor)."""

FAST_SAC = Learner(
    name="FastSAC",
    entry_point=FAST_SAC_ENTRY_POINT,
    algorithm="go2_locomotion.fast_sac:FastSAC",
    checkpoint_keys=frozenset({"actor_state_dict", "target_critic_state_dict"}),
    policy="actor",
    plays=("FastSAC",),
    supports_ranks=False,
    warm_start_from=(),
    teacher=False,
    check=checks.check_fast_sac,
    geometry=geometry.replay_geometry,
)
"""The package's off-policy learner (:mod:`go2_locomotion.fast_sac`): one process (no gradient all-reduce is
written), its own networks only (a squashed actor that PPO's networks do not fit)."""

DISTILLATION = Learner(
    name="Distillation",
    entry_point=DISTILLATION_ENTRY_POINT,
    runner="DistillationRunner",
    algorithm="rsl_rl.algorithms:Distillation",
    checkpoint_keys=frozenset({"student_state_dict", "teacher_state_dict"}),
    policy="student",
    plays=("Distillation", "PPO"),
    supports_ranks=True,
    warm_start_from=("PPO",),
    teacher=True,
    check=checks.check_distillation,
    geometry=geometry.distillation_geometry,
)
"""RSL-RL's teacher-student distillation: the student imitates a PPO teacher of the catalog's ``teacher`` task; RSL-RL
averages its gradients over ranks."""

LEARNERS = (PPO, FAST_SAC, DISTILLATION)
"""Every learner, the default first."""

BY_NAME = {learner.name: learner for learner in LEARNERS}
"""Learner name -> its description."""


def _accepted() -> str:
    return ", ".join(f"{learner.name} (class_name {learner.runner}, {learner.algorithm})" for learner in LEARNERS)


def learner_of(agent_cfg) -> Learner:
    """The learner an agent config (a config object or its dict) trains with.

    Raises:
        UsageError: Naming the config's runner and algorithm, and the accepted pairs.
    """
    from rsl_rl.utils import resolve_callable  # RSL-RL: heavy

    try:
        runner, name = str(lookup(agent_cfg, "class_name")), lookup(agent_cfg, "algorithm.class_name")
    except MissingField as missing:
        raise UsageError(f"agent.{missing.path} is missing: it names the learner; accepted: {_accepted()}") from None
    try:  # as RSL-RL reads it, from the config's dict: a class, or its name as a plain string
        algorithm = resolve_callable(name if isinstance(name, type) else str(name))
    except (ImportError, AttributeError, ValueError, TypeError):
        raise UsageError(
            f"agent.algorithm.class_name must name an algorithm class, got {name!r}; accepted: {_accepted()}"
        ) from None
    for learner in LEARNERS:
        if (
            runner == learner.runner
            and isinstance(algorithm, type)
            and issubclass(algorithm, learner.algorithm_class())
        ):
            return learner
    raise UsageError(
        f"agent.class_name {runner!r} with agent.algorithm.class_name {name!r} is no learner of this package; "
        f"accepted: {_accepted()}"
    )


def learner_of_checkpoint(checkpoint: Mapping) -> Learner | None:
    """The learner that saved ``checkpoint`` (the one with the most :attr:`~Learner.checkpoint_keys`, all present),
    or ``None`` when no learner's keys are there."""
    found = [learner for learner in LEARNERS if learner.checkpoint_keys <= set(checkpoint)]
    return max(found, key=lambda learner: len(learner.checkpoint_keys), default=None)


def learner_of_algorithm(algorithm) -> Learner:
    """The learner whose algorithm class ``algorithm`` (a live runner's ``alg``) is an instance of.

    Raises:
        TypeError: For an algorithm of no learner (a runner this package did not build).
    """
    for learner in LEARNERS:
        if isinstance(algorithm, learner.algorithm_class()):
            return learner
    raise TypeError(f"{type(algorithm).__name__} is the algorithm of no learner of this package")


def checkpoint_keys_text() -> str:
    """The keys that make a file an RSL-RL checkpoint of some learner, for messages."""
    return ", ".join(sorted({learner.policy_key for learner in LEARNERS}))
