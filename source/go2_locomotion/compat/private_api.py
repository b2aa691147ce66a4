"""The one place that relies on other libraries' private or undocumented API, checked against the installed
versions.

The ``check_*`` functions (once per class) and the accessors verify that every name the package relies on exists,
and raise :class:`PrivateApiError` naming the missing one and the installed version, instead of a failure (or a
silently skipped feature) deep inside a run. They check names, never source text: ``hasattr`` and
``inspect.signature`` for what a class defines, the attribute names a method's compiled code assigns for what its
instances get (:func:`_assigned_attributes`), and a constant of the compiled code for a log format. On a release
other than the one pinned in :data:`~go2_locomotion.versions.UPSTREAM_PINS` they warn once and carry on.
"""

from __future__ import annotations

import dis
import functools
import inspect
import logging
import types

import numpy as np

from ..versions import UPSTREAM_PINS, package_version
from . import written_for

PRIVATE_NAMES = "go2_locomotion's use of private names (compat/private_api.py)"
"""What :func:`~go2_locomotion.compat.written_for` names when a checked library is not the pinned release."""

# Imported inside functions: the libraries each accessor reaches into (RSL-RL, Isaac Lab, newton); importing the
# adapter loads none of them, and under Isaac Sim Isaac Lab's simulation classes must follow Kit's start.


class PrivateApiError(RuntimeError):
    """An attribute this package relies on is missing from an installed library."""


def _require(condition: bool, what: str, distribution: str) -> None:
    if not condition:
        version = package_version(distribution) or "not installed"
        raise PrivateApiError(
            f"{what} is missing from {distribution} {version}; go2_locomotion was written against "
            f"{distribution} {UPSTREAM_PINS[distribution]}"
        )


def _functions(owner) -> list[types.FunctionType]:
    """``owner`` itself (a function, unwrapped), or the plain functions a class defines."""
    if inspect.isclass(owner):
        return [inspect.unwrap(f) for f in vars(owner).values() if inspect.isfunction(f)]
    return [inspect.unwrap(owner)]


def _assigned_attributes(*owners) -> set[str]:
    """The attribute names (``obj.<name> = ...``) that the compiled code of ``owners`` (functions, or classes: the
    functions they define) assigns: what their instances get, independent of how the source is written."""
    return {
        instruction.argval
        for owner in owners
        for function in _functions(owner)
        for instruction in dis.get_instructions(function)
        if instruction.opname == "STORE_ATTR"
    }


def _calls_by_keyword(function, method: str, keywords: tuple[str, ...]) -> bool:
    """Whether ``function``'s compiled code reaches ``.method`` and makes a call with ``keywords`` among its keyword
    arguments (CPython keeps each call's keyword names as one tuple constant of the code object)."""
    code = _functions(function)[0].__code__
    calls = (constant for constant in code.co_consts if isinstance(constant, tuple))
    return method in code.co_names and any(set(keywords) <= set(names) for names in calls)


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
    written_for(dist, PRIVATE_NAMES)
    for name in ("_configure_multi_gpu", "learn"):
        _require(callable(getattr(OnPolicyRunner, name, None)), f"OnPolicyRunner.{name}", dist)
    keywords = ("it", "collect_time", "learn_time")
    _require(
        _calls_by_keyword(OnPolicyRunner.learn, "log", keywords),
        "OnPolicyRunner.learn's call self.logger.log(it=, collect_time=, learn_time=)",
        dist,
    )
    assigned = _assigned_attributes(OnPolicyRunner._configure_multi_gpu)
    for name in ("gpu_global_rank", "gpu_world_size", "is_distributed"):
        _require(name in assigned, f"OnPolicyRunner.{name}", dist)
    parameters = inspect.signature(Logger.__init__).parameters
    for name in ("log_dir", "cfg", "env_cfg", "num_envs", "is_distributed", "gpu_world_size", "gpu_global_rank"):
        _require(name in parameters, f"Logger.__init__ parameter {name!r}", dist)
    log_parameters = inspect.signature(Logger.log).parameters
    for name in ("it", "collect_time", "learn_time"):
        _require(name in log_parameters, f"Logger.log parameter {name!r}", dist)
    _require(callable(getattr(Logger, "init_logging_writer", None)), "Logger.init_logging_writer", dist)
    assigned = _assigned_attributes(Logger)
    for name in ("disable_logs", "writer", "rewbuffer", "lenbuffer"):
        _require(name in assigned, f"Logger.{name}", dist)


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
    assigned = _assigned_attributes(ray_caster_cls._initialize_pose_tracking)
    _require("_ovphysx_body_view" in assigned, "OvPhysX RayCaster._ovphysx_body_view", "isaaclab")


PROBE_PRIM_PATH = "/__go2_locomotion_probe__"
"""A prim path no stage has: the key of the stand-in mesh :func:`ray_caster_reuses_cached_mesh` caches."""


def ray_caster_reuses_cached_mesh(ray_caster_cls) -> bool | None:
    """Whether the ray caster's mesh loading (``_initialize_warp_meshes``) takes the mesh cached in the class-level
    ``meshes`` under (prim path, device) without looking at the stage (the upstream cache
    :mod:`go2_locomotion.compat.ray_caster_meshes` works around). Probed on a stand-in sensor (``cfg``,
    ``_device``) with a stand-in mesh cached under :data:`PROBE_PRIM_PATH`, removed again: it is reused when the
    loading returns with it in place; a loading that goes on to the stage fails there (no such prim) or replaces
    it. ``None`` when the loading reads something the stand-in lacks (the probe cannot tell)."""
    owner = ray_caster_cls.__name__
    meshes = _attribute(ray_caster_cls, "meshes", owner, "isaaclab")
    load = _attribute(ray_caster_cls, "_initialize_warp_meshes", owner, "isaaclab")
    key, cached = (PROBE_PRIM_PATH, "cpu"), object()
    sensor = types.SimpleNamespace(cfg=types.SimpleNamespace(mesh_prim_paths=[key[0]]), _device=key[1])
    meshes[key] = cached
    try:
        load(sensor)
        reused = meshes.get(key) is cached
    except AttributeError as error:
        reused = None if error.obj is sensor or error.obj is sensor.cfg else False
    except Exception:  # the stage has no such prim: it was looked up
        reused = False
    finally:
        meshes.pop(key, None)
    return reused


@functools.cache
def check_height_grid_scanner(ray_caster_cls) -> None:
    """The ray caster's hooks :mod:`go2_locomotion.tasks.height_scanner` extends (on every backend):
    ``_initialize_impl`` and ``_update_buffers_impl(env_mask)`` (the sensor's start and its update of the masked
    environments), ``_update_ray_infos(env_mask)`` (Isaac Lab's kernel writing ``pos_w``, ``quat_w`` and the world
    rays ``self._ray_starts_w`` / ``_ray_directions_w`` made by ``_initialize_rays_impl``), ``get_world_poses`` (on
    Newton it brings the model's poses up to date first), and the ``_device``, ``_num_envs`` and ``_data`` the base
    classes set."""
    written_for("isaaclab", PRIVATE_NAMES)
    owner = ray_caster_cls.__name__
    for name in ("_initialize_impl", "_update_buffers_impl", "_update_ray_infos", "_initialize_rays_impl"):
        _require(callable(getattr(ray_caster_cls, name, None)), f"{owner}.{name}", "isaaclab")
    _require(callable(getattr(ray_caster_cls, "get_world_poses", None)), f"{owner}.get_world_poses", "isaaclab")
    parameters = list(inspect.signature(ray_caster_cls._update_buffers_impl).parameters)
    _require(parameters == ["self", "env_mask"], f"{owner}._update_buffers_impl(self, env_mask)", "isaaclab")
    rays = _assigned_attributes(ray_caster_cls._initialize_rays_impl)
    for name in ("_ray_starts_w", "_ray_directions_w"):
        _require(name in rays, f"{owner}.{name}", "isaaclab")
    isaac = _assigned_attributes(*(cls for cls in ray_caster_cls.__mro__ if cls.__module__.startswith("isaac")))
    for name in ("_device", "_num_envs", "_data"):
        _require(name in isaac, f"{owner}.{name}", "isaaclab")


def ray_cast_mesh(sensor):
    """The Warp mesh of the sensor's one mesh prim (``BaseRayCaster.meshes[(prim path, device)]``), loaded by
    ``BaseRayCaster._initialize_warp_meshes`` where the backend's caster loaded none (Newton's casts at its scene's
    shapes)."""
    from isaaclab.sensors.ray_caster.base_ray_caster import BaseRayCaster

    key = (sensor.cfg.mesh_prim_paths[0], _attribute(sensor, "_device", type(sensor).__name__, "isaaclab"))
    if key not in BaseRayCaster.meshes:
        _attribute(BaseRayCaster, "_initialize_warp_meshes", "BaseRayCaster", "isaaclab")(sensor)
    return BaseRayCaster.meshes[key]


def ovphysx_ray_caster_rows(sensor) -> list[str]:
    """The prim paths of an OvPhysX ray caster's pose binding, in its row order (``_ovphysx_body_view``)."""
    return list(_attribute(sensor, "_ovphysx_body_view", type(sensor).__name__, "isaaclab").prim_paths)


# -- RSL-RL ---------------------------------------------------------------------------------------------------


def observation_normalizer(policy):
    """The policy model's observation normaliser (``MLPModel.obs_normalizer``), or ``None`` when it has none."""
    normalizer = getattr(policy, "obs_normalizer", None)
    return normalizer if normalizer is not None and hasattr(normalizer, "mean") else None


# -- Isaac Lab's viser visualizer ------------------------------------------------------------------------------


def viser_visualizer_viewer(visualizer):
    """The newton viser viewer an Isaac Lab viser visualizer draws into (``ViserVisualizer._viewer``), ``None``
    before it starts and once it is closed."""
    return _attribute(visualizer, "_viewer", "ViserVisualizer", "isaaclab")


def draw_viser_frame(visualizer) -> None:
    """Draw the scene's current state into a viser visualizer's viewer, as ``ViserVisualizer.step`` does for a
    connected browser (``_viewer``, ``_sim_time``, ``_scene_data_provider``, ``_transform_mapping``,
    ``_render_markers``)."""
    from isaaclab.scene_data import SceneDataFormat

    def private(name):
        return _attribute(visualizer, name, "ViserVisualizer", "isaaclab")

    viewer, backend, provider = private("_viewer"), visualizer.backend, private("_scene_data_provider")
    viewer.begin_frame(private("_sim_time"))
    try:
        poses = SceneDataFormat.Transform()
        if provider.get_transforms(poses, mapping=private("_transform_mapping"), count=backend.model.body_count):
            backend.state_0.body_q = poses.transforms
        viewer.log_state(backend.state_0)
        if visualizer.cfg.enable_markers:
            private("_render_markers")(backend.model.num_envs)
    finally:
        viewer.end_frame()


VISUALIZER_STEP_ERROR = "Error stepping visualizer '%s': %s"
"""The log call (format string) with which Isaac Lab 3.0's ``SimulationContext`` reports a visualizer whose step
raised, before it drops it; Isaac Lab offers no hook or state that tells a dropped visualizer from a closed one."""

VISUALIZER_LOGGER = "isaaclab.sim.simulation_context"
"""The logger of that report."""


class VisualizerFailures(logging.Handler):
    """The visualizers Isaac Lab dropped because their step raised, while installed (a context manager).

    Isaac Lab says so only in a log record: it is matched by logger and format string, never by the rendered text,
    and on leaving, the installed ``SimulationContext`` is checked to still report failures that way
    (:class:`PrivateApiError` otherwise).
    """

    def __init__(self):
        super().__init__(level=logging.ERROR)
        self.failures: list[str] = []
        """Each failure as Isaac Lab reported it."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == VISUALIZER_LOGGER and record.msg == VISUALIZER_STEP_ERROR:
            self.failures.append(record.getMessage())

    def __enter__(self) -> VisualizerFailures:
        logging.getLogger(VISUALIZER_LOGGER).addHandler(self)
        return self

    def __exit__(self, exc_type, *exc) -> None:
        logging.getLogger(VISUALIZER_LOGGER).removeHandler(self)
        if exc_type is None:
            check_visualizer_failure_report()


@functools.cache
def check_visualizer_failure_report() -> None:
    """``SimulationContext`` logs :data:`VISUALIZER_STEP_ERROR` on :data:`VISUALIZER_LOGGER` when it drops a
    visualizer: its module is that logger's, and the format string is a constant of ``update_visualizers``'s
    compiled code (the simulation has run by then: the import costs nothing)."""
    from isaaclab.sim import SimulationContext

    written_for("isaaclab", PRIVATE_NAMES)
    update = getattr(SimulationContext, "update_visualizers", None)
    constants = _functions(update)[0].__code__.co_consts if callable(update) else ()
    _require(
        SimulationContext.__module__ == VISUALIZER_LOGGER and VISUALIZER_STEP_ERROR in constants,
        f"SimulationContext.update_visualizers's report {VISUALIZER_STEP_ERROR!r}",
        "isaaclab",
    )


# -- newton / viser -------------------------------------------------------------------------------------------


def viser_server(viewer):
    """The ``viser.ViserServer`` of a newton viser viewer (``ViewerViser._server``; viser's own API from there)."""
    return _attribute(viewer, "_server", type(viewer).__name__, "newton")


def rollout_storage(runner):
    """The PPO rollout storage of an on-policy runner (``OnPolicyRunner.alg.storage``, a ``RolloutStorage``)."""
    algorithm = _attribute(runner, "alg", type(runner).__name__, "rsl-rl-lib")
    return _attribute(algorithm, "storage", type(algorithm).__name__, "rsl-rl-lib")


def viser_plane_drawing_misses_to_numpy(viewer_cls) -> bool:
    """Whether drawing a ground plane with Isaac Lab's viser viewer (``_log_plane_instances``) stops at the
    ``self._to_numpy`` that newton 1.6.1's ``ViewerViser`` no longer has (:mod:`go2_locomotion.compat.viser_viewer`).
    Probed on an instance that was never started (no server): the draw raises ``AttributeError`` for
    ``_to_numpy``, or for the state it reaches next once it gets past that."""
    draw = _attribute(viewer_cls, "_log_plane_instances", viewer_cls.__name__, "isaaclab")
    viewer = object.__new__(viewer_cls)
    try:
        draw(viewer, "go2_locomotion_probe", {"width": 1.0, "length": 1.0}, np.zeros((1, 7), np.float32), None)
    except AttributeError as error:
        return error.name == "_to_numpy" and error.obj is viewer
    except Exception:  # got past the conversion
        return False
    return False


def has_to_numpy(viewer_cls) -> bool:
    """Whether a viser viewer class has ``_to_numpy``."""
    return hasattr(viewer_cls, "_to_numpy")


def newton_to_numpy():
    """newton 1.6.1's array conversion that its ``ViewerViser`` had as ``_to_numpy`` in earlier releases
    (``to_numpy`` of the private module ``newton._src.viewer.utils``)."""
    from newton._src.viewer import utils

    return _attribute(utils, "to_numpy", "newton._src.viewer.utils", "newton")


def give_to_numpy(viewer, to_numpy) -> None:
    """Give one viewer instance the ``_to_numpy`` its Isaac Lab code calls (its class is not modified)."""
    viewer._to_numpy = to_numpy
