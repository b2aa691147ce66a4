"""Hand-built deploy bundles (no simulator): the Go2-Flat observation layout (and Go2-Rough's, the flat terms and
the height scan), a linear ONNX policy; the shipped pretrained bundle with an edited manifest."""

from pathlib import Path

import numpy as np
import onnx
import yaml
from onnx import TensorProto, helper

from go2_locomotion import pretrained
from go2_locomotion.assets.go2_description import JOINT_NAMES
from go2_locomotion.robot.bundle import FORMAT, SDK2_JOINT_ORDER, sha256_file

PHYSX_ORDER = [f"{leg}_{part}_joint" for part in ("hip", "thigh", "calf") for leg in ("FL", "FR", "RL", "RR")]
"""PhysX's joint order for the Go2: joint type by joint type (hips, thighs, calves), legs FL, FR, RL, RR."""
NEWTON_ORDER = list(JOINT_NAMES)
"""Newton's (and the pinned public) order: leg by leg, as the description lists them."""
DEFAULTS = {"hip": 0.1, "thigh": 0.8, "calf": -1.5}
"""The Go2 standing pose [rad]: left hips; right hips are negated, rear thighs are 1.0."""

FLAT_TERMS = [  # (name, function, width)
    ("base_lin_vel", "base_lin_vel", 3),
    ("base_ang_vel", "base_ang_vel", 3),
    ("projected_gravity", "projected_gravity", 3),
    ("velocity_commands", "generated_commands", 3),
    ("joint_pos", "joint_pos_rel", 12),
    ("joint_vel", "joint_vel_rel", 12),
    ("actions", "last_action", 12),
]


def default_position(name: str) -> float:
    leg, part = name.split("_")[0], name.split("_")[1]
    if part == "thigh" and leg.startswith("R"):
        return 1.0
    value = DEFAULTS[part]
    return -value if part == "hip" and leg.endswith("R") else value


def write_linear_onnx(path: Path, weight: np.ndarray, bias: np.ndarray, input_name="obs", output_name="actions"):
    """actions = obs @ weight.T + bias, as an ONNX Gemm, input ``[1, O]``."""
    out_width, in_width = weight.shape
    graph = helper.make_graph(
        [helper.make_node("Gemm", [input_name, "W", "b"], [output_name], transB=1)],
        "linear_policy",
        [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, [1, in_width])],
        [helper.make_tensor_value_info(output_name, TensorProto.FLOAT, [1, out_width])],
        initializer=[
            helper.make_tensor("W", TensorProto.FLOAT, weight.shape, weight.astype(np.float32).ravel()),
            helper.make_tensor("b", TensorProto.FLOAT, bias.shape, bias.astype(np.float32)),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 10
    onnx.save(model, str(path))


def joint_pos_passthrough(obs_width: int = 48) -> np.ndarray:
    """A policy whose action is the observed relative joint position (obs[12:24])."""
    weight = np.zeros((12, obs_width))
    weight[:, 12:24] = np.eye(12)
    return weight


def make_manifest(names: list[str], onnx_path: Path, in_width: int = 48) -> dict:
    defaults = [default_position(n) for n in names]
    terms, start = [], 0
    for name, function, width in FLAT_TERMS:
        terms.append(
            {
                "name": name,
                "function": function,
                "input": "",
                "start": start,
                "width": width,
                "scale": None,
                "clip": None,
                "noise": None,
                "params": {},
            }
        )
        start += width
    return {
        "format": FORMAT,
        "task": "Go2-Flat",
        "checkpoint": None,
        "timing": {"policy_rate_hz": 50.0, "policy_dt": 0.02, "sim_dt": 0.005, "decimation": 4},
        "joints": {
            "names": names,
            "backend": "newton",
            "sdk2_names": list(SDK2_JOINT_ORDER),
            "policy_to_sdk2": [SDK2_JOINT_ORDER.index(n) for n in names],
            "sdk2_to_policy": [names.index(n) for n in SDK2_JOINT_ORDER],
            "default_position": defaults,
            "default_velocity": [0.0] * 12,
        },
        "actuators": {
            "model": "DCMotor",
            "kp": [25.0] * 12,
            "kd": [0.5] * 12,
            "effort_limit": [45.43 if "calf" in n else 23.7 for n in names],
            "velocity_limit": [30.0] * 12,
            "saturation_effort": [45.43 if "calf" in n else 23.7 for n in names],
        },
        "action": {
            "term": "joint_pos",
            "width": 12,
            "scale": [0.25] * 12,
            "offset": defaults,
            "clip": None,
            "policy_output_clip": None,
        },
        "observation": {"group": "policy", "width": start, "terms": terms, "normalizer": None},
        "commands": {},
        "policy": {
            "file": onnx_path.name,
            "sha256": sha256_file(onnx_path),
            "input": {"name": "obs", "width": in_width},
            "output": {"name": "actions", "width": 12},
        },
    }


def make_bundle(
    folder: Path, names: list[str] = PHYSX_ORDER, weight: np.ndarray | None = None, edit=None, bias=None
) -> Path:
    """Write ``policy.onnx`` and ``deploy.yaml`` into ``folder``; ``edit(manifest)`` may change the manifest;
    ``bias``: the policy's constant action term (default zero)."""
    folder.mkdir(parents=True, exist_ok=True)
    onnx_path = folder / "policy.onnx"
    weight = joint_pos_passthrough() if weight is None else weight
    write_linear_onnx(onnx_path, weight, np.zeros(12) if bias is None else np.asarray(bias, dtype=np.float64))
    manifest = make_manifest(list(names), onnx_path, in_width=weight.shape[1])
    if edit is not None:
        edit(manifest)
    (folder / "deploy.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    return folder


def scanner_cfg():
    """Go2-Rough's height scanner config (the task's scene)."""
    from go2_locomotion.tasks.velocity_env_cfg import Go2SceneCfg

    return Go2SceneCfg(num_envs=1, env_spacing=2.5).height_scanner


def task_scan_points() -> np.ndarray:
    """The Go2-Rough scan points as Isaac Lab's pattern function lays them out for the task's pattern config."""
    pattern = scanner_cfg().pattern_cfg
    starts, _ = pattern.func(pattern, "cpu")
    return starts[:, :2].numpy().astype(np.float64)


def rough_bundle(folder: Path, weight: np.ndarray | None = None, task: str | None = None, bias=None) -> Path:
    """A test bundle observing Go2-Rough's height scan after the flat terms: 48 + 187 inputs. ``weight``: the
    linear policy's ``[12, 235]`` weight (default: pass-through, :func:`joint_pos_passthrough`); ``task``: the
    task the manifest names (default: the flat fixture's); ``bias``: the constant action term."""
    points = task_scan_points()

    def add_scan(m):
        m["observation"]["terms"].append(
            {
                "name": "height_scan",
                "function": "height_scan",
                "start": m["observation"]["width"],
                "width": len(points),
                "scale": None,
                "clip": [-1.0, 1.0],
                "params": {"offset": 0.5, "sensor_offset_z": 0.0, "points_xy": points.tolist(), "ray_alignment": "yaw"},
            }
        )
        m["observation"]["width"] += len(points)
        if task is not None:
            m["task"] = task

    weight = joint_pos_passthrough(48 + len(points)) if weight is None else weight
    return make_bundle(folder, weight=weight, edit=add_scan, bias=bias)


def edited_pretrained(folder: Path, edit) -> Path:
    """The shipped pretrained bundle copied to ``folder/edited``, ``edit(manifest)`` applied to its ``deploy.yaml``."""
    source = pretrained.bundle()
    bundle = folder / "edited"
    bundle.mkdir()
    (bundle / "policy.onnx").write_bytes((source / "policy.onnx").read_bytes())
    manifest = yaml.safe_load((source / "deploy.yaml").read_text())
    edit(manifest)
    (bundle / "deploy.yaml").write_text(yaml.safe_dump(manifest))
    return bundle


def narrow_limits(manifest: dict, margin: float | None, effort: float | None) -> None:
    """Joint limits at the standing pose +- ``margin`` [rad], effort limits at ``effort`` [N m] (``None``: kept)."""
    default = manifest["joints"]["default_position"]
    if margin is not None:
        manifest["joints"]["position_limits"] = [[p - margin, p + margin] for p in default]
    if effort is not None:
        for key in ("effort_limit", "saturation_effort"):
            manifest["actuators"][key] = [effort] * len(default)
