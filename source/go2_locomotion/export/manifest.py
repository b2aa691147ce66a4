"""Writing the deploy bundle from a live Isaac Lab environment and an RSL-RL runner (needs Isaac Lab):
``policy.pt`` and ``policy.onnx`` with RSL-RL's exporters, then ``deploy.yaml``. Every value is read from the live
environment and configs, never retyped; what :mod:`go2_locomotion.robot.controller` could not rebuild is refused, so
no bundle is written that it would run wrongly. Why and the field list: docs/deploy.md, *What deploy.yaml is built
from*."""

from __future__ import annotations

import inspect
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import torch
import yaml
from isaaclab.actuators import ActuatorBase
from isaaclab.utils.string import resolve_matching_names_values

from ..compat import private_api
from ..envs import physics_record
from ..robot.bundle import (
    FORMAT,
    JOINT_DYNAMICS,
    MANIFEST_FILE,
    NUM_JOINTS,
    POLICY_FILE,
    SDK2_JOINT_ORDER,
    load_bundle,
    sha256_file,
)
from ..robot.observations import OBSERVATION_TERMS, SCANNER, ObservationTerm
from ..run_params import PARAMS_ENV
from ..tasks import mdp
from ..tasks.mdp.history import history_frames
from ..tasks.mdp.symmetry import Go2Mirror, mirror_of
from ..tasks.mdp.terms import term_is
from ..versions import package_versions
from .symmetrised import Symmetrised

ONNX_OPSET = 18
"""Opset RSL-RL 5.5's exporter writes."""
ONNX_INPUT, ONNX_OUTPUT = "obs", "actions"
"""Tensor names in ``policy.onnx``."""

POLICY_GROUP = "policy"
"""Observation group the actor reads."""

ACTION_TERM = "joint_pos"
"""The joint-position action term."""

OBSERVATION_FORMAT = {getattr(mdp, name): name for name in OBSERVATION_TERMS}
"""Observation function -> its name in the bundle format: for each term of :data:`.observations.OBSERVATION_TERMS`,
the function :mod:`go2_locomotion.tasks.mdp` exports under that name (a term renamed there fails here, at import). A
term whose function is not here is refused."""


def observation_format_name(func) -> str | None:
    """The bundle format's name of an observation term's function (:data:`OBSERVATION_FORMAT`), ``None`` when the
    reference controller cannot rebuild it."""
    return next((name for term, name in OBSERVATION_FORMAT.items() if term_is(func, term)), None)


class ExportError(ValueError):
    """The environment uses something the deploy bundle cannot describe; the message names the term."""


def _number(value: Any) -> float:
    # shortest decimal that reads back to the same float32: the manifest stays legible and exact
    return float(str(np.float32(value)))


def _numbers(values: Any) -> list[float]:
    return [_number(v) for v in np.asarray(values, dtype=np.float64).reshape(-1)]


def _per_joint(values: Any) -> list[float]:
    """A scalar, ``[J]`` or ``[num_envs, J]`` value as ``J`` numbers from environment 0."""
    array = values.torch if hasattr(values, "torch") else values
    array = np.asarray(array.detach().cpu() if hasattr(array, "detach") else array, dtype=np.float64)
    if array.ndim == 0:
        return [_number(array)] * NUM_JOINTS
    return _numbers(array.reshape(-1, array.shape[-1])[0])


def _joints(robot, action_term, backend: str) -> dict[str, Any]:
    names = list(robot.joint_names)
    action_names = private_api.action_joint_names(action_term)
    if action_names != names:
        raise ExportError(
            f"action term '{ACTION_TERM}' drives {action_names}; the bundle needs all {NUM_JOINTS} joints in the "
            f"articulation's order {names}"
        )
    unknown = [n for n in names if n not in SDK2_JOINT_ORDER]
    if unknown:
        raise ExportError(f"joints {unknown} are not Go2 motors; accepted: {', '.join(SDK2_JOINT_ORDER)}")
    limits = robot.data.joint_pos_limits.torch[0].cpu().numpy()
    return {
        "names": names,
        "backend": backend,
        "backend_names": list(robot.backend_joint_names),
        "sdk2_names": list(SDK2_JOINT_ORDER),
        "policy_to_sdk2": [SDK2_JOINT_ORDER.index(n) for n in names],
        "sdk2_to_policy": [names.index(n) for n in SDK2_JOINT_ORDER],
        "default_position": _per_joint(robot.data.default_joint_pos),
        "default_velocity": _per_joint(robot.data.default_joint_vel),
        "position_limits": [_numbers(row) for row in limits],
    }


ACTUATOR_FIELDS = {
    # manifest key: (Isaac Lab actuator attribute, Newton actuator (component, parameter) candidates)
    "kp": ("stiffness", [("controller", "kp")]),
    "kd": ("damping", [("controller", "kd")]),
    "effort_limit": ("actuator_effort_limit", [("clamping", "max_motor_effort"), ("clamping", "max_effort")]),
    "velocity_limit": ("actuator_velocity_limit", [("clamping", "velocity_limit")]),
    "saturation_effort": (private_api.actuator_saturation_effort, [("clamping", "saturation_effort")]),
}
"""Per-joint actuator figures and where each backend keeps its live value (an attribute name or an accessor)."""


def _group_values(robot, name: str) -> dict[str, Any]:
    """Live values of one actuator group, each ``[num_envs, group joints]`` or ``None``, from the Isaac
    Lab-executed model or from the Newton actuator that runs the group (on Newton, and on PhysX when Isaac Lab
    hands explicit models to Newton)."""
    group = robot.actuators[name]
    if isinstance(group, ActuatorBase):
        return {
            key: attribute(group) if callable(attribute) else getattr(group, attribute, None)
            for key, (attribute, _) in ACTUATOR_FIELDS.items()
        }
    from isaaclab.actuators.newton.adapter import read_group_parameter  # Newton: only a Newton-run group needs it

    values = {}
    for key, (_, candidates) in ACTUATOR_FIELDS.items():
        values[key] = None
        for component, parameter in candidates:
            try:
                values[key] = read_group_parameter(robot.actuators, name, component, parameter)
                break
            except ValueError:
                continue
    return values


def actuator_figures(robot) -> dict[str, Any]:
    """Per-joint actuator figures in the articulation's joint order (model, kp, kd, effort and velocity limits,
    saturation effort), read from the live actuator models; then the joints' nominal rotor inertia and friction
    (:data:`~go2_locomotion.robot.bundle.JOINT_DYNAMICS`) from the actuator configs (the live values may be a
    robot's randomised ones)."""
    names = list(robot.joint_names)
    per_joint: dict[str, list] = {key: [None] * NUM_JOINTS for key in ACTUATOR_FIELDS}
    models = set()
    for name, cfg in robot.cfg.actuators.items():
        models.add(type(cfg).__name__.removesuffix("Cfg"))
        _, group_joints = robot.find_joints(cfg.joint_names_expr)
        for key, value in _group_values(robot, name).items():
            column = _per_joint(value) if value is not None else [None] * len(group_joints)
            for k, joint in enumerate(group_joints):
                per_joint[key][names.index(joint)] = column[k]
    for key in JOINT_DYNAMICS:
        per_joint[key] = [0.0] * NUM_JOINTS
        for cfg in robot.cfg.actuators.values():
            value = getattr(cfg, key)
            if value is None:  # the USD's: the package's Go2 description authors none
                continue
            joints = robot.find_joints(cfg.joint_names_expr)[1]
            if isinstance(value, dict):
                _, matched, values = resolve_matching_names_values(value, joints)
                value = dict(zip(matched, values, strict=True))
            for joint in joints:
                per_joint[key][names.index(joint)] = _number(value[joint] if isinstance(value, dict) else value)
    missing = [names[i] for i, kp in enumerate(per_joint["kp"]) if kp is None]
    if missing:
        raise ExportError(f"joints {missing} have no actuator gains; the bundle needs gains for all {NUM_JOINTS}")
    return {"model": "+".join(sorted(models)), **per_joint}


def _action(action_term, agent_cfg) -> dict[str, Any]:
    scale, offset, clip = private_api.action_scale_offset_clip(action_term)
    if clip is not None:
        clip = [_numbers(row) for row in clip[0].cpu().numpy()]
    return {
        "term": ACTION_TERM,
        "width": int(action_term.action_dim),
        "scale": _per_joint(scale),
        "offset": _per_joint(offset),
        "clip": clip,
        "policy_output_clip": None if agent_cfg.clip_actions is None else _number(agent_cfg.clip_actions),
        "target": "joint position target [rad] = offset + scale x action, then clip",
    }


def _noise(noise_cfg) -> dict[str, Any] | None:
    if noise_cfg is None:
        return None
    described = {"type": type(noise_cfg).__name__, "training_only": True}
    for key in ("n_min", "n_max", "mean", "std", "bias", "operation"):
        if hasattr(noise_cfg, key):
            value = getattr(noise_cfg, key)
            described[key] = value if isinstance(value, str) else _number(value)
    return described


_UNSET = object()


def _config_value(term_cfg, key: str) -> Any:
    """A term parameter as the MDP function receives it: the config's value, else the function's own default;
    :data:`_UNSET` when neither gives one or the default is ``None``."""
    if key in term_cfg.params:
        return term_cfg.params[key]
    parameter = inspect.signature(term_cfg.func).parameters.get(key)
    if parameter is None or parameter.default is inspect.Parameter.empty or parameter.default is None:
        return _UNSET
    return parameter.default


def _scanner_geometry(env, term_cfg) -> dict[str, Any]:
    """The ray caster named by the term's ``sensor_cfg`` as :data:`.observations.SCANNER_GEOMETRY` describes it."""
    sensor = env.scene.sensors[term_cfg.params["sensor_cfg"].name]
    robot = env.scene["robot"]
    starts = sensor.ray_starts.torch[0].cpu().numpy()
    return {
        # The sensor frame sits at the trunk origin plus its configured offset; the height is read in it.
        "sensor_offset_z": _number((sensor.data.pos_w.torch[0, 2] - robot.data.root_pos_w.torch[0, 2]).item()),
        "points_xy": [_numbers(p) for p in starts[:, :2]],
        "ray_alignment": sensor.cfg.ray_alignment,
    }


def term_params(env, name: str, term_cfg, term: ObservationTerm) -> dict[str, Any]:
    """The ``params`` the bundle carries for observation term ``name`` (config ``term_cfg``, vocabulary entry
    ``term``): the vocabulary's parameters, in its order, numbers as the shortest decimal of their float32.

    Raises:
        ExportError: The term reads a subset of the joints.
    """
    for key, value in term_cfg.params.items():
        if key == "asset_cfg" and value.joint_ids not in (slice(None), list(range(NUM_JOINTS))):
            raise ExportError(f"observation term '{name}' reads a subset of the joints ({value.joint_names})")
    scanner = _scanner_geometry(env, term_cfg) if any(p.source == SCANNER for p in term.params) else {}
    params: dict[str, Any] = {}
    for parameter in term.params:
        if parameter.source == SCANNER:
            params[parameter.name] = scanner[parameter.name]
            continue
        condition = _config_value(term_cfg, parameter.only_with) if parameter.only_with is not None else True
        if condition is _UNSET or condition is None:
            continue
        value = _config_value(term_cfg, parameter.name)
        if value is not _UNSET:
            params[parameter.name] = value if value is None or isinstance(value, str) else _number(value)
    return params


def _observation(env, runner) -> dict[str, Any]:
    manager = env.observation_manager
    if POLICY_GROUP not in manager.active_terms:
        raise ExportError(f"no '{POLICY_GROUP}' observation group; groups: {list(manager.active_terms)}")
    if not manager.group_obs_concatenate[POLICY_GROUP]:
        raise ExportError(f"observation group '{POLICY_GROUP}' is not concatenated")
    terms, start = [], 0
    frames = history_frames(getattr(env.cfg.observations, POLICY_GROUP))
    names = manager.active_terms[POLICY_GROUP]
    for name, dims, term_cfg in zip(
        names,
        manager.group_obs_term_dim[POLICY_GROUP],
        private_api.observation_term_cfgs(manager, POLICY_GROUP),
        strict=True,
    ):
        function = observation_format_name(term_cfg.func)
        if function is None:
            raise ExportError(
                f"observation term '{name}' uses {getattr(term_cfg.func, '__name__', term_cfg.func)}, which the "
                f"reference controller cannot rebuild; supported: {', '.join(OBSERVATION_TERMS)}"
            )
        vocabulary = OBSERVATION_TERMS[function]
        if vocabulary.rebuild is None:
            raise ExportError(
                f"observation term '{name}' ({function}) is known to the simulator only; a robot cannot measure it, "
                f"so the '{POLICY_GROUP}' group must not read it (a privileged critic group may)"
            )
        if (term_cfg.history_length and frames == 1) or term_cfg.modifiers:
            raise ExportError(
                f"observation term '{name}' uses its own history or modifiers, which the bundle cannot describe "
                "(a group's history_order='time' it can)"
            )
        width = int(np.prod(dims)) // frames  # one frame of it
        scale = term_cfg.scale
        terms.append(
            {
                "name": name,
                "function": function,
                "input": vocabulary.input,
                "units": vocabulary.units,
                "start": start,
                "width": width,
                "scale": None if scale is None else (_number(scale) if np.isscalar(scale) else _numbers(scale)),
                "clip": None if term_cfg.clip is None else _numbers(term_cfg.clip),
                # the configured noise: the manager drops it when corruption is off (playback)
                "noise": _noise(getattr(getattr(env.cfg.observations, POLICY_GROUP), name).noise),
                "params": term_params(env, name, term_cfg, vocabulary),
            }
        )
        start += width
    normalizer = private_api.observation_normalizer(runner.alg.get_policy())
    statistics = None
    if normalizer is not None:
        statistics = {
            "mean": _numbers(normalizer.mean.cpu().numpy()),
            "std": _numbers(normalizer.std.cpu().numpy()),
            "eps": _number(normalizer.eps),
            "formula": "(obs - mean) / (std + eps); already applied inside policy.onnx",
        }
    observation = {
        "group": POLICY_GROUP,
        "width": start * frames,
        "noise": "training only; the bundle's observation is noise-free (noise figures listed per term)",
        "order": "terms concatenated in the order below; each term: clip, then scale",
        "terms": terms,
        "normalizer": statistics,
    }
    if frames > 1:
        observation["history"] = {
            "length": frames,
            "order": "the terms above form one frame [width / length]; the policy reads length frames, oldest "
            "first; after a reset every frame holds the first frame",
        }
    return observation


def _commands(env) -> dict[str, Any]:
    commands = {}
    for name in env.command_manager.active_terms:
        cfg = env.command_manager.get_term(name).cfg
        ranges = {k: _numbers(v) for k, v in cfg.ranges.to_dict().items() if v is not None}
        heading = bool(getattr(cfg, "heading_command", False))
        commands[name] = {
            "ranges": ranges,
            "heading_command": heading,
            "units": "lin_vel_x, lin_vel_y [m/s], ang_vel_z [rad/s], heading [rad]",
        }
        if heading:  # the yaw rate per radian of heading error, which the deploy side's heading hold reuses
            commands[name]["heading_control_stiffness"] = float(cfg.heading_control_stiffness)
            commands[name]["units"] += ", heading_control_stiffness [1/s]"
    return commands


def _policy(onnx_path: Path) -> dict[str, Any]:
    model = onnx.load(str(onnx_path))

    def described(value):
        return {"name": value.name, "width": int(value.type.tensor_type.shape.dim[-1].dim_value)}

    return {
        "file": onnx_path.name,
        "sha256": sha256_file(onnx_path),
        "input": described(model.graph.input[0]),
        "output": described(model.graph.output[0]),
    }


def _robot_friction(env, asset_name: str) -> dict[str, Any] | None:
    """The friction coefficient ranges the robot's material is drawn from (Isaac Lab's
    ``randomize_rigid_body_material`` event on the robot), or ``None`` when no such event runs."""
    manager = env.event_manager
    for name in (name for names in manager.active_terms.values() for name in names):
        term_cfg = manager.get_term_cfg(name)
        asset_cfg = term_cfg.params.get("asset_cfg")
        if term_is(term_cfg.func, mdp.randomize_rigid_body_material) and getattr(asset_cfg, "name", None) == asset_name:
            return {
                "static": _numbers(term_cfg.params["static_friction_range"]),
                "dynamic": _numbers(term_cfg.params["dynamic_friction_range"]),
                "event": name,
            }
    return None


def _physics(env, asset_name: str) -> dict[str, Any]:
    """:func:`~go2_locomotion.envs.physics_record` and what re-simulating the robot needs from the resolved
    physics config: ``substeps`` per ``sim_dt``, the MuJoCo ``integrator`` and friction ``cone`` (``None`` where
    the engine has no such setting, e.g. PhysX), and the robot's friction (:func:`_robot_friction`)."""
    physics = env.cfg.sim.physics
    solver = getattr(physics, "solver_cfg", None)
    substeps = getattr(physics, "num_substeps", None)
    return {
        **physics_record(env),
        "substeps": None if substeps is None else int(substeps),
        "integrator": getattr(solver, "integrator", None),
        "cone": getattr(solver, "cone", None),
        "robot_friction": _robot_friction(env, asset_name),
    }


def _range_value(value: Any) -> Any:
    """A term parameter as the manifest writes a range: numbers, strings, lists and dicts of them; ``_UNSET`` for
    anything else (an asset or sensor selection)."""
    if isinstance(value, bool) or value is None:
        return _UNSET
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        items = [_range_value(v) for v in value]
        return _UNSET if any(v is _UNSET for v in items) else items
    if isinstance(value, dict):
        items = {str(k): _range_value(v) for k, v in value.items()}
        return {k: v for k, v in items.items() if v is not _UNSET} or _UNSET
    return _UNSET


def training_conditions(env_cfg) -> dict[str, Any]:
    """What the policy met in training, read from the task's training config (``play_mode`` off, the export's
    presets): the targets' delay and every event term (the start-up, reset and interval randomisation) with its
    ranges. The observation noise is in each term's entry; the export's own robot is the nominal play robot."""
    action_cfg = getattr(env_cfg.actions, ACTION_TERM)
    terms = {
        name: (getattr(term.func, "__name__", str(term.func)), term.mode, term.interval_range_s, term.params)
        for name, term in vars(env_cfg.events).items()
        if term is not None and hasattr(term, "func")
    }
    delay_steps = (getattr(action_cfg, "min_delay", 0), getattr(action_cfg, "max_delay", 0))
    return _conditions(
        "the task's training configuration with the export's presets", env_cfg.sim.dt, delay_steps, terms
    )


def training_conditions_of_run(env_params: dict[str, Any]) -> dict[str, Any]:
    """:func:`training_conditions` read from a run's resolved training config
    (:data:`~go2_locomotion.run_params.PARAMS_ENV`, parsed by :func:`go2_locomotion.run_params.load`): the ranges
    the run trained against, Hydra overrides and presets included, whatever the export's own presets are. An entity
    selection (a dict with a ``name``, e.g. ``asset_cfg``) is not a range and is left out, as it is from a config."""
    action = env_params["actions"][ACTION_TERM]
    terms = {
        name: (
            str(term["func"]).rpartition(":")[2],
            term["mode"],
            term.get("interval_range_s"),
            {k: v for k, v in (term.get("params") or {}).items() if not (isinstance(v, dict) and "name" in v)},
        )
        for name, term in (env_params.get("events") or {}).items()
        if isinstance(term, dict) and "func" in term
    }
    delay_steps = (action.get("min_delay", 0), action.get("max_delay", 0))
    return _conditions(
        f"the run's resolved training configuration ({PARAMS_ENV.as_posix()})",
        env_params["sim"]["dt"],
        delay_steps,
        terms,
    )


def _conditions(source: str, sim_dt: float, delay_steps: tuple[int, int], terms: dict[str, tuple]) -> dict[str, Any]:
    """The manifest's ``training`` entry: the targets' delay in seconds and each event term (``name -> (function
    name, mode, interval range or None, params)``) with the params that are ranges."""
    events = {}
    for name, (function, mode, interval, params) in terms.items():
        entry = {"function": function, "mode": mode}
        if interval is not None:
            entry["interval_range_s"] = _range_value(interval)
        for key, value in params.items():
            if (described := _range_value(value)) is not _UNSET:
                entry[key] = described
        events[name] = entry
    return {
        "source": source,
        "action_delay_s": [_number(delay_steps[0] * sim_dt), _number(delay_steps[1] * sim_dt)],
        "events": events,
    }


def build_manifest(
    env, runner, agent_cfg, *, onnx_path: Path, task: str, checkpoint: str | None, training: dict | None = None
) -> dict[str, Any]:
    """The manifest of a policy exported to ``onnx_path``, read from ``env`` (the unwrapped
    ``ManagerBasedRLEnv``), the RSL-RL ``runner`` and its ``agent_cfg``; ``training`` is the ``training`` entry
    (:func:`training_conditions` or :func:`training_conditions_of_run`; ``None`` when not given).

    Raises:
        ExportError: The environment uses a term the bundle cannot describe.
    """
    action_term = env.action_manager.get_term(ACTION_TERM)
    robot = env.scene[action_term.cfg.asset_name]
    physics = _physics(env, action_term.cfg.asset_name)
    return {
        "format": FORMAT,
        "written_by": package_versions("go2_locomotion", "isaaclab", "rsl-rl-lib"),
        "task": task,
        "checkpoint": checkpoint,
        "physics": physics,
        "timing": {
            "policy_rate_hz": _number(1.0 / env.step_dt),
            "policy_dt": _number(env.step_dt),
            "sim_dt": _number(env.physics_dt),
            "decimation": int(env.cfg.decimation),
        },
        "joints": _joints(robot, action_term, physics["backend"]),
        "actuators": actuator_figures(robot),
        "action": _action(action_term, agent_cfg),
        "observation": _observation(env, runner),
        "commands": _commands(env),
        "policy": _policy(onnx_path),
        "training": training,
    }


class _Dumper(yaml.SafeDumper):
    pass


def _represent_list(dumper, data):
    flow = all(not isinstance(v, dict | list) for v in data) or all(
        isinstance(v, list) and all(not isinstance(x, dict | list) for x in v) for v in data
    )
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow and bool(data))


_Dumper.add_representer(list, _represent_list)


def write_manifest(manifest: dict[str, Any], export_dir: Path) -> Path:
    """Write ``deploy.yaml`` into ``export_dir`` and read the bundle back through the deploy-side checks."""
    path = Path(export_dir) / MANIFEST_FILE
    header = "# Go2 deploy manifest, written by go2_locomotion from the live environment. Per-joint lists are in\n"
    header += "# joints.names order; joints.policy_to_sdk2 maps them to Unitree SDK2 motor indices.\n"
    path.write_text(header + yaml.dump(manifest, Dumper=_Dumper, sort_keys=False, width=120))
    load_bundle(export_dir)
    return path


def export_policy(runner, export_dir: Path, mirror: Go2Mirror | None = None) -> tuple[Path, Path]:
    """Write ``policy.pt`` and ``policy.onnx`` (normaliser included) with RSL-RL's exporters; with ``mirror`` (the
    environment's left-right mirror) the policy averaged with its mirror image (:mod:`.symmetrised`), exported by
    the same calls RSL-RL's runner makes.

    torch's ONNX exporter may put the weights in a side file (``policy.onnx.data``); they are folded back into
    ``policy.onnx`` so the policy is one self-contained file. Neither file names the exporting machine's paths
    (ONNX stack traces and TorchScript debug records are dropped).
    """
    onnx_path = export_dir / POLICY_FILE
    if mirror is None:
        runner.export_policy_to_jit(path=str(export_dir), filename="policy.pt")
        runner.export_policy_to_onnx(path=str(export_dir), filename=onnx_path.name)
    else:
        policy = runner.alg.get_policy()
        observation = mirror.groups[POLICY_GROUP]
        torch.jit.script(Symmetrised(policy.as_jit(), observation, mirror.actions).to("cpu")).save(
            str(export_dir / "policy.pt")
        )
        module = Symmetrised(policy.as_onnx(verbose=False), observation, mirror.actions).to("cpu").eval()
        torch.onnx.export(
            module,
            module.get_dummy_inputs(),
            str(onnx_path),
            export_params=True,
            opset_version=ONNX_OPSET,
            input_names=module.input_names,
            output_names=module.output_names,
        )
    side_files = [p for p in export_dir.iterdir() if p.name.startswith(f"{onnx_path.name}.")]
    model = onnx.load(str(onnx_path))
    for node in model.graph.node:  # the exporter's Python stack traces name this machine's source paths
        kept = [(p.key, p.value) for p in node.metadata_props if p.key != ONNX_STACK_TRACE]
        del node.metadata_props[:]
        for key, value in kept:
            node.metadata_props.add(key=key, value=value)
    onnx.save_model(model, str(onnx_path), save_as_external_data=False)
    for side_file in side_files:
        side_file.unlink()
    jit_path = export_dir / "policy.pt"
    _drop_torchscript_debug_info(jit_path)
    return jit_path, onnx_path


ONNX_STACK_TRACE = "pkg.torch.onnx.stack_trace"
"""Node metadata torch's ONNX exporter fills with the exporting machine's source file paths."""


def _drop_torchscript_debug_info(path: Path) -> None:
    """Remove TorchScript's ``*.debug_pkl`` records (source ranges naming the exporting machine's files); the module
    loads and runs the same without them."""
    temporary = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(temporary, "w") as target:
        for info in source.infolist():
            if not info.filename.endswith(".debug_pkl"):
                target.writestr(info, source.read(info.filename))
    temporary.replace(path)


def export_bundle(
    env,
    runner,
    agent_cfg,
    export_dir: Path,
    *,
    task: str,
    checkpoint: str | None,
    training: dict | None = None,
    symmetrise: bool = False,
) -> dict[str, Path]:
    """Export ``policy.pt``, ``policy.onnx`` and ``deploy.yaml`` into ``export_dir``; returns their paths.
    ``training``: what the policy trained against (the manifest's ``training`` entry, see :func:`build_manifest`);
    ``symmetrise``: export the policy averaged with its left-right mirror image (:mod:`.symmetrised`;
    ``policy.symmetrised``)."""
    export_dir = Path(export_dir)
    export_dir.mkdir(parents=True, exist_ok=True)
    jit_path, onnx_path = export_policy(runner, export_dir, mirror_of(env) if symmetrise else None)
    manifest = build_manifest(
        env, runner, agent_cfg, onnx_path=onnx_path, task=task, checkpoint=checkpoint, training=training
    )
    manifest["policy"]["symmetrised"] = symmetrise
    return {"policy.pt": jit_path, "policy.onnx": onnx_path, MANIFEST_FILE: write_manifest(manifest, export_dir)}
