"""Turn the Go2 description into the USD asset Isaac Lab spawns, built once and cached.

The MJCF from :mod:`go2_description` is converted with ``mujoco-usd-converter`` (MJCF -> USD on the CPU, no
network). The converter nests each body inside its parent, as MuJoCo does; Isaac Lab addresses rigid bodies as
direct children of the robot prim (``{ENV_REGEX_NS}/Robot/base``, ``.../Robot/FL_foot``), so the bodies are
lifted to the top of the asset with their transforms relative to it kept and every relationship re-targeted.

The result is cached under :func:`cache_dir` by a hash of everything it is built from; a changed description or
converter version gives a new file name, so a stale asset is never reused. Next to it a ``.sha256`` file records
the finished file's digest: a cached file whose digest is missing or differs (deleted, half-written, edited) is
rebuilt, never loaded.

Configs do not hold the cache path: they name the asset by :data:`OFFLINE_USD`, and the spawner resolves it with
:func:`resolve_usd_path` when the robot is spawned, so the cache folder in force *then* is the one used, whatever
``GO2_LOCOMOTION_CACHE_DIR`` said when the configs were imported (a job script or notebook that sets it late).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from . import go2_description

_FLATTEN_VERSION = "1"
"""Bump when the flattening below changes, so cached assets are rebuilt."""

CACHE_ENV_VAR = "GO2_LOCOMOTION_CACHE_DIR"
"""Environment variable that overrides the cache folder (for example a node-local scratch disk on a cluster)."""


OFFLINE_USD = "{GO2_LOCOMOTION_CACHE}/go2.usda"
"""The ``usd_path`` by which a config names this package's offline Go2 asset. It is not a file: the spawner
builds or finds the asset in the cache folder in force at spawn time (:func:`resolve_usd_path`). Any other
``usd_path`` (a file, Isaac Lab's hosted asset) is used as given."""


def cache_dir() -> Path:
    """Folder for generated assets: ``$GO2_LOCOMOTION_CACHE_DIR``, else ``$XDG_CACHE_HOME/go2_locomotion``, else
    ``~/.cache/go2_locomotion``."""
    if os.environ.get(CACHE_ENV_VAR):
        return Path(os.environ[CACHE_ENV_VAR]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "go2_locomotion"


def _converter_version() -> str:
    from importlib.metadata import version

    return version("mujoco-usd-converter")


def go2_usd_path() -> Path:
    """Where the Go2 USD for the current description lives in the cache (it may not be built yet)."""
    mjcf = go2_description.to_mjcf(spawn_height=0.0)
    key = hashlib.sha256(f"{mjcf}\n{_converter_version()}\n{_FLATTEN_VERSION}".encode()).hexdigest()[:16]
    return cache_dir() / f"go2-{key}.usda"


def resolve_usd_path(usd_path: str) -> str:
    """The file to spawn for a config's ``usd_path``: :data:`OFFLINE_USD` becomes the cached asset in the cache
    folder in force now (built first if missing or incomplete); anything else is returned unchanged."""
    return str(ensure_go2_usd()) if usd_path == OFFLINE_USD else usd_path


def _digest_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_complete(path: Path) -> bool:
    """Whether ``path`` is a finished build: it exists and its recorded digest matches its bytes."""
    digest = _digest_path(path)
    if not (path.is_file() and digest.is_file()):
        return False
    return digest.read_text().strip() == _sha256(path)


def ensure_go2_usd() -> Path:
    """Build the Go2 USD unless the cache holds a complete one, and return its path.

    Safe against concurrent builders (several ranks of a distributed job): each writes private temporary files
    and renames them into place atomically, the asset first and its digest last, so a reader that finds a
    matching digest reads a finished file.
    """
    path = go2_usd_path()
    if is_complete(path):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="go2_usd_") as work:
        mjcf_path = Path(work) / f"{go2_description.MODEL_NAME}.xml"
        mjcf_path.write_text(go2_description.to_mjcf(spawn_height=0.0))
        layer = _convert_and_flatten(mjcf_path, Path(work) / "converted")
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.usda")
        layer.Export(str(tmp))
        digest = _sha256(tmp)
        tmp_digest = _digest_path(tmp)
        tmp_digest.write_text(digest + "\n")
        os.replace(tmp, path)
        os.replace(tmp_digest, _digest_path(path))
    return path


def _convert_and_flatten(mjcf_path: Path, out_dir: Path):
    import mujoco_usd_converter
    from pxr import Sdf, Usd, UsdGeom, UsdPhysics

    converted = mujoco_usd_converter.Converter(layer_structure=False, scene=False).convert(str(mjcf_path), str(out_dir))
    src = Sdf.Layer.FindOrOpen(converted.path)
    stage = Usd.Stage.Open(src)
    root = stage.GetDefaultPrim()
    xform_cache = UsdGeom.XformCache()
    to_root = xform_cache.GetLocalToWorldTransform(root).GetInverse()

    # old body path -> (new body path, body pose relative to the asset root)
    moves = {}
    for prim in stage.Traverse():
        if prim.HasAPI(UsdPhysics.RigidBodyAPI):
            pose = xform_cache.GetLocalToWorldTransform(prim) * to_root
            moves[prim.GetPath()] = (root.GetPath().AppendChild(prim.GetName()), pose)

    out = Sdf.Layer.CreateAnonymous(".usda")
    out.TransferContent(src)
    # Drop the nested tree, then copy each body back in at the top level, without its child bodies.
    containers = {old.GetPrefixes()[1] for old in moves}  # the scope(s) directly under the root holding the tree
    edit = Sdf.BatchNamespaceEdit()
    for container in containers:
        edit.Add(Sdf.NamespaceEdit.Remove(container))
    if not out.Apply(edit):
        raise RuntimeError(f"could not remove the nested body tree {sorted(map(str, containers))} from the asset")
    for old, (new, pose) in moves.items():
        if not Sdf.CopySpec(src, old, out, new):
            raise RuntimeError(f"could not copy body {old} to {new}")
        spec = out.GetPrimAtPath(new)
        for name in [child.name for child in spec.nameChildren if old.AppendChild(child.name) in moves]:
            del spec.nameChildren[name]
        spec.attributes["xformOp:translate"].default = pose.ExtractTranslation()
        spec.attributes["xformOp:orient"].default = _gf_quatf(pose.ExtractRotationQuat())

    def retarget(path: Sdf.Path) -> Sdf.Path:
        owners = [old for old in moves if path.HasPrefix(old)]
        if not owners:
            return path
        owner = max(owners, key=lambda p: p.pathElementCount)
        return path.ReplacePrefix(owner, moves[owner][0])

    def visit(path: Sdf.Path) -> None:
        if not path.IsPrimPath():
            return
        for rel in out.GetPrimAtPath(path).relationships:
            items = list(rel.targetPathList.explicitItems)
            if items:
                rel.targetPathList.explicitItems = [retarget(item) for item in items]

    out.Traverse(root.GetPath(), visit)
    # The converter's note names its temporary input folder; a fixed note keeps the build byte-for-byte repeatable.
    out.documentation = f"Go2 from go2_locomotion, mujoco-usd-converter {_converter_version()}, bodies flattened"
    return out


def _gf_quatf(quat):
    from pxr import Gf

    return Gf.Quatf(float(quat.GetReal()), *(float(v) for v in quat.GetImaginary()))


if __name__ == "__main__":
    # Build the cached asset ahead of time (e.g. on a login node, or outside Isaac Sim) and print its path.
    print(ensure_go2_usd())
