"""Reading and checking a deploy bundle: ``deploy.yaml`` (the manifest, ``format: go2_locomotion.deploy/1``) next to
``policy.onnx``. Imports numpy, onnxruntime and PyYAML only, so a robot-side computer can use it without Isaac Lab.
Per-joint lists are in the policy's joint order (``joints.names``) unless the field name says ``sdk2``.

Why: docs/deploy.md, *What deploy.yaml is built from*.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ..dotted import MissingField, lookup
from .joints import NUM_JOINTS, SDK2_JOINT_ORDER
from .observations import OBSERVATION_TERMS

FORMAT = "go2_locomotion.deploy/1"
"""Manifest format tag; a reader refuses other formats."""

MANIFEST_FILE = "deploy.yaml"
"""Manifest file name inside a bundle folder."""

POLICY_FILE = "policy.onnx"
"""Policy file name inside a bundle folder."""

OBSERVATION_INPUTS = OBSERVATION_TERMS
"""The observation terms the reference controller can rebuild, by bundle name: :data:`.observations.OBSERVATION_TERMS`
(this module's older name for it)."""


class BundleError(ValueError):
    """A bundle that cannot be used; the message names the file and the field."""


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@dataclass(frozen=True)
class Bundle:
    """A checked bundle: the manifest plus the per-joint arrays a controller needs, as numpy arrays."""

    directory: Path
    """Bundle folder."""
    manifest: dict[str, Any]
    """The parsed ``deploy.yaml``."""
    policy_path: Path
    """``policy.onnx``."""
    policy_to_sdk2: np.ndarray
    """``[12]`` int: SDK2 motor index of each policy joint."""
    sdk2_to_policy: np.ndarray
    """``[12]`` int: policy index of each SDK2 motor."""
    session: Any
    """The ``onnxruntime.InferenceSession`` of ``policy.onnx`` (CPU), loaded once by the checks."""

    @property
    def manifest_path(self) -> Path:
        return self.directory / MANIFEST_FILE

    def field(self, dotted: str) -> Any:
        """A manifest value by dotted name, e.g. ``"timing.policy_dt"``."""
        return _field(self.manifest, dotted, self.manifest_path)

    def joint_array(self, dotted: str) -> np.ndarray:
        """A per-joint manifest list ``[12]`` (policy order) as float64."""
        return _joint_array(self.manifest, dotted, self.manifest_path)

    def joint_dynamics(self) -> dict[str, np.ndarray]:
        """The joints' passive figures the policy was trained with, ``{name: [12]}`` in policy order:
        ``armature`` [kg m^2], ``friction`` (Coulomb) [N m] and ``viscous_friction`` [N m s/rad]
        (:data:`JOINT_DYNAMICS`); zeros for a figure the manifest lacks (bundles exported before 2026-12-06,
        whose Go2 had none)."""
        actuators = self.manifest.get("actuators") or {}
        return {
            key: self.joint_array(f"actuators.{key}") if actuators.get(key) is not None else np.zeros(NUM_JOINTS)
            for key in JOINT_DYNAMICS
        }

    def command_ranges(self) -> dict[str, list[float]]:
        """The ranges of the velocity command the policy observes, e.g. ``{"lin_vel_x": [lo, hi], ...}``: the
        ``commands`` entry its command input's ``params.command_name`` names."""
        terms = self.field("observation.terms")
        names = [t.get("params", {}).get("command_name") for t in terms if t["input"] == "command"]
        if len(names) != 1 or names[0] is None:
            raise BundleError(f"{self.manifest_path}: expected one command input with a 'command_name', got {names}")
        return self.field(f"commands.{names[0]}.ranges")


def _field(manifest: dict, dotted: str, path: Path) -> Any:
    try:
        return lookup(manifest, dotted)
    except MissingField as missing:
        raise BundleError(f"{path}: {missing}") from None


def _joint_array(manifest: dict, dotted: str, path: Path) -> np.ndarray:
    value = _field(manifest, dotted, path)
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise BundleError(f"{path}: field '{dotted}' must be a list of {NUM_JOINTS} numbers, got {value!r}") from None
    if array.shape != (NUM_JOINTS,):
        raise BundleError(f"{path}: field '{dotted}' must hold {NUM_JOINTS} numbers, got shape {list(array.shape)}")
    return array


def _check_joints(manifest: dict, path: Path) -> tuple[np.ndarray, np.ndarray]:
    names = _field(manifest, "joints.names", path)
    if not isinstance(names, list) or len(names) != NUM_JOINTS:
        raise BundleError(f"{path}: field 'joints.names' must list the {NUM_JOINTS} joints, got {names!r}")
    for name in names:
        if name not in SDK2_JOINT_ORDER:
            raise BundleError(
                f"{path}: field 'joints.names' has unknown joint {name!r}; accepted: {', '.join(SDK2_JOINT_ORDER)}"
            )
    if len(set(names)) != NUM_JOINTS:
        raise BundleError(f"{path}: field 'joints.names' lists a joint twice: {names}")
    if _field(manifest, "joints.sdk2_names", path) != list(SDK2_JOINT_ORDER):
        raise BundleError(f"{path}: field 'joints.sdk2_names' must be {list(SDK2_JOINT_ORDER)}")
    expected = [SDK2_JOINT_ORDER.index(name) for name in names]
    if _field(manifest, "joints.policy_to_sdk2", path) != expected:
        raise BundleError(
            f"{path}: field 'joints.policy_to_sdk2' is {_field(manifest, 'joints.policy_to_sdk2', path)}, but "
            f"joints.names gives {expected}"
        )
    inverse = [names.index(name) for name in SDK2_JOINT_ORDER]
    if _field(manifest, "joints.sdk2_to_policy", path) != inverse:
        raise BundleError(
            f"{path}: field 'joints.sdk2_to_policy' is {_field(manifest, 'joints.sdk2_to_policy', path)}, but "
            f"joints.names gives {inverse}"
        )
    return np.asarray(expected), np.asarray(inverse)


def _check_timing(manifest: dict, path: Path) -> None:
    values = {key: _field(manifest, f"timing.{key}", path) for key in ("policy_dt", "sim_dt", "decimation")}
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise BundleError(f"{path}: field 'timing.{key}' must be a positive number, got {value!r}")
    if abs(values["sim_dt"] * values["decimation"] - values["policy_dt"]) > 1e-6:
        raise BundleError(
            f"{path}: field 'timing.policy_dt' is {values['policy_dt']}, but sim_dt x decimation is "
            f"{values['sim_dt'] * values['decimation']}"
        )


JOINT_DYNAMICS = ("armature", "friction", "viscous_friction")
"""Optional per-joint ``actuators`` fields: rotor inertia [kg m^2], Coulomb [N m] and viscous [N m s/rad] joint
friction, each >= 0 (:meth:`Bundle.joint_dynamics`)."""

INTEGRATORS = ("euler", "rk4", "implicit", "implicitfast")
"""MuJoCo integrators a manifest may name in ``physics.integrator``."""

CONES = ("pyramidal", "elliptic")
"""MuJoCo friction cones a manifest may name in ``physics.cone``."""


def _check_physics(manifest: dict, path: Path) -> None:
    """The optional re-simulation fields of ``physics``, where present and not null."""
    physics = manifest.get("physics") or {}
    substeps = physics.get("substeps")
    if substeps is not None and (isinstance(substeps, bool) or not isinstance(substeps, int) or substeps < 1):
        raise BundleError(f"{path}: field 'physics.substeps' must be a positive integer, got {substeps!r}")
    for key, accepted in (("integrator", INTEGRATORS), ("cone", CONES)):
        value = physics.get(key)
        if value is not None and str(value).lower() not in accepted:
            raise BundleError(f"{path}: field 'physics.{key}' is {value!r}; accepted: {', '.join(accepted)}")
    friction = physics.get("robot_friction")
    for kind in ("static", "dynamic") if friction is not None else ():
        values = _field(manifest, f"physics.robot_friction.{kind}", path)
        if not (
            isinstance(values, list)
            and len(values) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in values)
        ):
            raise BundleError(
                f"{path}: field 'physics.robot_friction.{kind}' must be a [low, high] range of coefficients >= 0, "
                f"got {values!r}"
            )


def history_length(manifest: dict, path: Path) -> int:
    """Frames of the policy's observation history (``observation.history.length``; 1 without a history), checked:
    an integer >= 1."""
    if manifest.get("observation", {}).get("history") is None:
        return 1
    length = _field(manifest, "observation.history.length", path)
    if not isinstance(length, int) or isinstance(length, bool) or length < 1:
        raise BundleError(f"{path}: field 'observation.history.length' must be an integer >= 1, got {length!r}")
    return length


def _check_observation(manifest: dict, path: Path) -> int:
    width = _field(manifest, "observation.width", path)
    terms = _field(manifest, "observation.terms", path)
    frames = history_length(manifest, path)
    start = 0
    for index, term in enumerate(terms):
        where = f"observation.terms[{index}]"
        for key in ("name", "function", "width", "start"):
            if key not in term:
                raise BundleError(f"{path}: field '{where}.{key}' is missing")
        if term["function"] not in OBSERVATION_TERMS or OBSERVATION_TERMS[term["function"]].rebuild is None:
            buildable = [name for name, known in OBSERVATION_TERMS.items() if known.rebuild is not None]
            raise BundleError(
                f"{path}: field '{where}.function' is {term['function']!r} (term {term['name']!r}); the reference "
                f"controller builds: {', '.join(buildable)}"
            )
        if term["start"] != start:
            raise BundleError(f"{path}: field '{where}.start' is {term['start']}, expected {start}")
        expected = OBSERVATION_TERMS[term["function"]].width
        if expected is not None and term["width"] != expected:
            raise BundleError(
                f"{path}: field '{where}.width' is {term['width']}, but the reference controller builds "
                f"{expected} values for {term['function']}"
            )
        start += term["width"]
    if start * frames != width:
        raise BundleError(
            f"{path}: field 'observation.width' is {width}, but the terms add up to {start}"
            + (f" per frame, {start * frames} over {frames} frames" if frames > 1 else "")
        )
    return width


def _check_policy(manifest: dict, policy_path: Path, path: Path):
    import onnxruntime as ort  # heavy: the format's tables (OBSERVATION_TERMS, ...) are read without it

    expected_hash = _field(manifest, "policy.sha256", path)
    if sha256_file(policy_path) != expected_hash:
        raise BundleError(
            f"{path}: field 'policy.sha256' does not match {policy_path} (the policy was replaced after export)"
        )
    session = ort.InferenceSession(str(policy_path), providers=["CPUExecutionProvider"])
    for kind, tensors, width_field in (
        ("input", session.get_inputs(), "observation.width"),
        ("output", session.get_outputs(), "action.width"),
    ):
        if len(tensors) != 1:
            raise BundleError(f"{policy_path}: expected one {kind} tensor, found {[t.name for t in tensors]}")
        name, width = tensors[0].name, tensors[0].shape[-1]
        if _field(manifest, f"policy.{kind}.name", path) != name:
            raise BundleError(
                f"{path}: field 'policy.{kind}.name' is {_field(manifest, f'policy.{kind}.name', path)!r}, "
                f"but {policy_path.name}'s {kind} is {name!r}"
            )
        for field_name in (f"policy.{kind}.width", width_field):
            if _field(manifest, field_name, path) != width:
                raise BundleError(
                    f"{path}: field '{field_name}' is {_field(manifest, field_name, path)}, but {policy_path.name}'s "
                    f"{kind} '{name}' has width {width}"
                )
    return session


def read_manifest(path: Path) -> dict[str, Any]:
    """Parse ``deploy.yaml``; a missing or unreadable file is reported with its path."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: deploy manifest not found (a bundle folder holds {MANIFEST_FILE} and {POLICY_FILE}; "
            "export one with scripts/export.py)"
        )
    try:
        manifest = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise BundleError(f"{path}: not valid YAML ({error})") from None
    if not isinstance(manifest, dict):
        raise BundleError(f"{path}: expected a mapping at the top level, got {type(manifest).__name__}")
    if manifest.get("format") != FORMAT:
        raise BundleError(f"{path}: field 'format' is {manifest.get('format')!r}, expected {FORMAT!r}")
    return manifest


def load_bundle(directory: Path | str) -> Bundle:
    """Read and check a bundle folder: the manifest's fields, the joint maps, the observation layout, and the
    ONNX model's names, widths and hash against the manifest.

    Raises:
        FileNotFoundError: The folder, ``deploy.yaml`` or the policy file is missing.
        BundleError: A field is missing or inconsistent; the message names the file and the field.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: bundle folder not found")
    path = directory / MANIFEST_FILE
    manifest = read_manifest(path)
    policy_file = _field(manifest, "policy.file", path)
    policy_path = directory / policy_file
    if not policy_path.is_file():
        raise FileNotFoundError(f"{policy_path}: policy file named by field 'policy.file' of {path} not found")
    _check_timing(manifest, path)
    _check_physics(manifest, path)
    policy_to_sdk2, sdk2_to_policy = _check_joints(manifest, path)
    per_joint = ("joints.default_position", "joints.default_velocity", "actuators.kp", "actuators.kd")
    for dotted in (*per_joint, "action.scale", "action.offset"):
        _joint_array(manifest, dotted, path)
    for key in JOINT_DYNAMICS:
        if (manifest.get("actuators") or {}).get(key) is not None:
            values = _joint_array(manifest, f"actuators.{key}", path)
            if not (np.isfinite(values).all() and (values >= 0).all()):
                raise BundleError(f"{path}: field 'actuators.{key}' must be {NUM_JOINTS} numbers >= 0, got {values}")
    if _field(manifest, "action.width", path) != NUM_JOINTS:
        raise BundleError(f"{path}: field 'action.width' must be {NUM_JOINTS}, got {manifest['action']['width']}")
    _check_observation(manifest, path)
    session = _check_policy(manifest, policy_path, path)
    return Bundle(directory, manifest, policy_path, policy_to_sdk2, sdk2_to_policy, session)
