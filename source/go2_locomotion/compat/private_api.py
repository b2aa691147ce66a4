"""The one place that relies on other libraries' private or undocumented API, checked once against the installed
versions.

:func:`check` verifies that every name the package relies on exists, and raises :class:`PrivateApiError` naming
the missing one and the installed version, instead of a failure (or a silently skipped feature) deep inside a run.
"""

from __future__ import annotations

import functools
import inspect

from ..versions import package_version


class PrivateApiError(RuntimeError):
    """An attribute this package relies on is missing from an installed library."""


def _require(condition: bool, what: str, distribution: str) -> None:
    if not condition:
        version = package_version(distribution) or "not installed"
        raise PrivateApiError(
            f"{what} is missing from {distribution} {version}; go2_locomotion was written against "
            f"rsl-rl-lib 5.5.1 and isaaclab 3.0.0"
        )


@functools.cache
def check_rsl_rl() -> None:
    """RSL-RL names :class:`~go2_locomotion.training.runner.Go2OnPolicyRunner` builds on:

    - ``OnPolicyRunner._configure_multi_gpu()`` (overridden for CPU ranks), called from ``__init__``;
    - ``OnPolicyRunner.learn`` calling ``self.logger.log(it=, collect_time=, learn_time=, ...)`` by keyword once per
      iteration (the iteration hook);
    - ``Logger(log_dir, cfg, env_cfg, num_envs, is_distributed, gpu_world_size, gpu_global_rank, device)`` and its
      ``disable_logs``, ``writer`` and ``init_logging_writer`` (rank-0 writing, TensorBoard resume), ``rewbuffer``
      and ``lenbuffer`` (the latest episodes' returns and lengths, for the run summary);
    - ``OnPolicyRunner.gpu_global_rank`` / ``gpu_world_size`` / ``is_distributed``.
    """
    from rsl_rl.runners import OnPolicyRunner
    from rsl_rl.utils.logger import Logger

    dist = "rsl-rl-lib"
    _require(
        callable(getattr(OnPolicyRunner, "_configure_multi_gpu", None)), "OnPolicyRunner._configure_multi_gpu", dist
    )
    learn_source = inspect.getsource(OnPolicyRunner.learn)
    for keyword in ("self.logger.log(", "it=it", "collect_time=collect_time", "learn_time=learn_time"):
        _require(keyword in learn_source, f"OnPolicyRunner.learn's call {keyword!r}", dist)
    init_source = inspect.getsource(OnPolicyRunner._configure_multi_gpu)
    for name in ("gpu_global_rank", "gpu_world_size", "is_distributed"):
        _require(f"self.{name}" in init_source, f"OnPolicyRunner.{name}", dist)
    parameters = inspect.signature(Logger.__init__).parameters
    for name in ("log_dir", "cfg", "env_cfg", "num_envs", "is_distributed", "gpu_world_size", "gpu_global_rank"):
        _require(name in parameters, f"Logger.__init__ parameter {name!r}", dist)
    log_parameters = inspect.signature(Logger.log).parameters
    for name in ("it", "collect_time", "learn_time"):
        _require(name in log_parameters, f"Logger.log parameter {name!r}", dist)
    logger_source = inspect.getsource(Logger)
    for name in ("self.disable_logs", "self.writer", "def init_logging_writer", "self.rewbuffer", "self.lenbuffer"):
        _require(name in logger_source, f"Logger {name.removeprefix('self.').removeprefix('def ')}", dist)


def _attribute(obj, name: str, owner: str, distribution: str):
    """``obj.<name>``, or :class:`PrivateApiError` naming ``owner.name`` and the installed version."""
    _require(hasattr(obj, name), f"{owner}.{name}", distribution)
    return getattr(obj, name)


# -- Isaac Lab: values it resolves but exposes under private names only ---------------------------------------


def action_joint_names(term) -> list[str]:
    """Joint names a joint action term drives, in its order (``JointAction._joint_names``)."""
    return list(_attribute(term, "_joint_names", type(term).__name__, "isaaclab"))


def action_scale_offset_clip(term):
    """The joint action term's resolved ``(scale, offset, clip)`` tensors (``_scale``, ``_offset``, ``_clip``;
    ``clip`` is ``None`` when the term has no clip)."""
    owner = type(term).__name__
    scale = _attribute(term, "_scale", owner, "isaaclab")
    offset = _attribute(term, "_offset", owner, "isaaclab")
    return scale, offset, getattr(term, "_clip", None)


def observation_term_cfgs(manager, group: str) -> list:
    """The term configs of an observation group, in the group's order (``ObservationManager._group_obs_term_cfgs``)."""
    return _attribute(manager, "_group_obs_term_cfgs", "ObservationManager", "isaaclab")[group]


def actuator_saturation_effort(group):
    """A DC-motor actuator's saturation effort (``DCMotor._saturation_effort``; ``None`` for other models)."""
    return getattr(group, "_saturation_effort", None)


def mujoco_warp_data(physics_manager):
    """MuJoCo-Warp's data arrays behind Newton's physics manager (``NewtonManager._solver.mjw_data``); ``None``
    on other physics backends. On Newton a missing attribute raises rather than disabling the caller."""
    if not physics_manager.__name__.lower().startswith("newton"):
        return None
    solver = _attribute(physics_manager, "_solver", physics_manager.__name__, "isaaclab")
    if solver is None or type(solver).__name__ != "SolverMuJoCo":
        return None  # not built yet, or another Newton solver
    return _attribute(solver, "mjw_data", type(solver).__name__, "newton")


@functools.cache
def check_ovphysx_ray_caster(ray_caster_cls) -> None:
    """The OvPhysX ray caster's hooks :mod:`go2_locomotion.compat.ovphysx_ray_caster` extends:
    ``_initialize_pose_tracking`` (creates ``self._ovphysx_body_view``, the pose binding, ``None`` for a static
    frame) and ``_get_view_transforms_wp`` (the tracked poses as ``wp.transformf``, one row per body)."""
    for name in ("_initialize_pose_tracking", "_get_view_transforms_wp"):
        _require(callable(getattr(ray_caster_cls, name, None)), f"OvPhysX RayCaster.{name}", "isaaclab")
    source = inspect.getsource(ray_caster_cls._initialize_pose_tracking)
    _require("self._ovphysx_body_view =" in source, "OvPhysX RayCaster._ovphysx_body_view", "isaaclab")


def ovphysx_ray_caster_rows(sensor) -> list[str]:
    """The prim paths of an OvPhysX ray caster's pose binding, in its row order (``_ovphysx_body_view``)."""
    return list(_attribute(sensor, "_ovphysx_body_view", type(sensor).__name__, "isaaclab").prim_paths)


# -- RSL-RL ---------------------------------------------------------------------------------------------------


def observation_normalizer(policy):
    """The policy model's observation normaliser (``MLPModel.obs_normalizer``), or ``None`` when it has none."""
    normalizer = getattr(policy, "obs_normalizer", None)
    return normalizer if normalizer is not None and hasattr(normalizer, "mean") else None


# -- newton / viser -------------------------------------------------------------------------------------------


def viser_server(viewer):
    """The ``viser.ViserServer`` of a newton viser viewer (``ViewerViser._server``; viser's own API from there)."""
    return _attribute(viewer, "_server", type(viewer).__name__, "newton")


def rollout_storage(runner):
    """The PPO rollout storage of an on-policy runner (``OnPolicyRunner.alg.storage``, a ``RolloutStorage``)."""
    algorithm = _attribute(runner, "alg", type(runner).__name__, "rsl-rl-lib")
    return _attribute(algorithm, "storage", type(algorithm).__name__, "rsl-rl-lib")


def viser_plane_logger_calls_to_numpy(viewer_cls) -> bool:
    """Whether Isaac Lab's viser viewer's ``_log_plane_instances`` calls ``self._to_numpy`` (the method newton
    1.6.1's ``ViewerViser`` no longer has; :mod:`go2_locomotion.compat.viser_viewer`)."""
    method = _attribute(viewer_cls, "_log_plane_instances", viewer_cls.__name__, "isaaclab")
    return "self._to_numpy(" in inspect.getsource(method)


def has_to_numpy(viewer_cls) -> bool:
    """Whether a viser viewer class has ``_to_numpy``."""
    return hasattr(viewer_cls, "_to_numpy")


def give_to_numpy(viewer, to_numpy) -> None:
    """Give one viewer instance the ``_to_numpy`` its Isaac Lab code calls (its class is not modified)."""
    viewer._to_numpy = to_numpy
