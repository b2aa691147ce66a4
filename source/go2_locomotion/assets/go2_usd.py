"""The Go2 USD asset Isaac Lab spawns: shipped, or converted from the description and cached. An asset's name
hashes everything it is built from, so a stale one is never used; configs name it by :data:`OFFLINE_USD`, which
:func:`resolve_usd_path` resolves when the robot is spawned.

``python -m go2_locomotion.assets.go2_usd`` builds it; ``--ship`` writes it into the package.

Why: docs/design.md, *The offline Go2*.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

from ..versions import package_version
from . import go2_description

# Imported inside functions: the converter (the optional extra ``usd-build``) and USD (``pxr``), which inside Isaac
# Sim must not load before Kit starts; spawning the shipped asset needs neither.

_FLATTEN_VERSION = "1"
"""Bump when the flattening below changes, so cached assets are rebuilt."""

CONVERTER_VERSION = "0.6.1"
"""The ``mujoco-usd-converter`` release assets are built with (the ``usd-build`` extra pins it): 0.8 needs
mujoco >= 3.16, newton pins 3.12. Part of every asset's key."""

CACHE_ENV_VAR = "GO2_LOCOMOTION_CACHE_DIR"
"""Environment variable that overrides the cache folder (for example a node-local scratch disk on a cluster)."""

SHIPPED_DIR = Path(__file__).parent / "data"
"""Where the package keeps the asset of its own description."""

OFFLINE_USD = "{GO2_LOCOMOTION_CACHE}/go2.usda"
"""The ``usd_path`` by which a config names this package's offline Go2 asset. It is not a file: the spawner
resolves it when the robot is spawned (:func:`resolve_usd_path`). Any other ``usd_path`` (a file, Isaac Lab's
hosted asset) is used as given."""


def cache_dir() -> Path:
    """Folder for generated assets: ``$GO2_LOCOMOTION_CACHE_DIR``, else ``$XDG_CACHE_HOME/go2_locomotion``, else
    ``~/.cache/go2_locomotion``."""
    if os.environ.get(CACHE_ENV_VAR):
        return Path(os.environ[CACHE_ENV_VAR]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "go2_locomotion"


def asset_name() -> str:
    """``go2-<key>.usda`` for the current description."""
    mjcf = go2_description.to_mjcf(spawn_height=0.0)
    key = hashlib.sha256(f"{mjcf}\n{CONVERTER_VERSION}\n{_FLATTEN_VERSION}".encode()).hexdigest()[:16]
    return f"go2-{key}.usda"


def go2_usd_path() -> Path:
    """Where the Go2 USD for the current description lives in the cache (it may not be built yet)."""
    return cache_dir() / asset_name()


def shipped_usd_path() -> Path | None:
    """The package's own asset when it was built from the current description, else ``None``."""
    path = SHIPPED_DIR / asset_name()
    return path if path.is_file() else None


def resolve_usd_path(usd_path: str) -> str:
    """The file to spawn for a config's ``usd_path``. :data:`OFFLINE_USD` becomes the shipped asset when the
    description is the package's own, else the cached asset in the cache folder in force now (built first if
    missing or incomplete); anything else is returned unchanged."""
    if usd_path != OFFLINE_USD:
        return usd_path
    return str(shipped_usd_path() or ensure_go2_usd())


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


def installed_converter_version() -> str | None:
    """The installed ``mujoco-usd-converter`` version, ``None`` without it (inside Isaac Sim, for example)."""
    return package_version("mujoco-usd-converter")


def _convert_and_flatten(mjcf_path: Path, out_dir: Path):
    installed = installed_converter_version()
    if installed != CONVERTER_VERSION:
        raise RuntimeError(
            f"building the Go2 USD needs mujoco-usd-converter=={CONVERTER_VERSION} (found {installed}): the "
            "description differs from the asset shipped with go2_locomotion. Build it outside Isaac Sim's Kit with "
            "`pip install -e .[usd-build]` and `python -m go2_locomotion.assets.go2_usd` (same cache folder)."
        )
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
    out.documentation = f"Go2 from go2_locomotion, mujoco-usd-converter {CONVERTER_VERSION}, bodies flattened"
    return out


def _gf_quatf(quat):
    from pxr import Gf

    return Gf.Quatf(float(quat.GetReal()), *(float(v) for v in quat.GetImaginary()))


def ship() -> Path:
    """Build the current description's asset into the package's data folder (replacing the shipped one)."""
    built = ensure_go2_usd()
    for old in SHIPPED_DIR.glob("go2-*.usda"):
        old.unlink()
    target = SHIPPED_DIR / built.name
    target.write_bytes(built.read_bytes())
    return target


def main(argv: list[str]) -> int:
    """``python -m go2_locomotion.assets.go2_usd [--ship]``: build the asset ahead of time (on a login node, or
    outside Isaac Sim's Kit) and print its path; ``--ship`` refreshes the shipped one."""
    print(ship() if "--ship" in argv else (shipped_usd_path() or ensure_go2_usd()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
