"""The offline Go2 USD: built from the description without network, flat body layout, cached."""

from pathlib import Path

import pytest
from network_guard import no_network

from go2_locomotion.assets import go2_description, go2_usd


@pytest.fixture(scope="module")
def built(asset_cache):
    with no_network() as attempts:
        path = go2_usd.ensure_go2_usd()
    assert attempts == []
    return path


def test_built_into_cache(built, asset_cache):
    assert built.parent == asset_cache
    assert built.name.startswith("go2-") and built.suffix == ".usda"
    assert built == go2_usd.go2_usd_path()


def test_bodies_are_direct_children_with_mass(built):
    from pxr import Usd, UsdPhysics

    stage = Usd.Stage.Open(str(built))
    root = stage.GetDefaultPrim()
    bodies = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.RigidBodyAPI)]
    assert sorted(p.GetName() for p in bodies) == sorted(go2_description.BODY_NAMES)
    assert all(p.GetParent() == root for p in bodies)
    total = sum(UsdPhysics.MassAPI(p).GetMassAttr().Get() for p in bodies)
    assert total == pytest.approx(go2_description.TOTAL_MASS, rel=1e-6)
    assert stage.GetPrimAtPath(root.GetPath().AppendChild("base")).HasAPI(UsdPhysics.ArticulationRootAPI)


def test_joints_connect_the_flattened_bodies(built):
    from pxr import Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.Open(str(built))
    root = stage.GetDefaultPrim().GetPath()
    revolute = {p.GetName(): UsdPhysics.RevoluteJoint(p) for p in stage.Traverse() if p.IsA(UsdPhysics.RevoluteJoint)}
    assert sorted(revolute) == sorted(go2_description.JOINT_NAMES)
    joint = revolute["FR_calf_joint"]
    assert joint.GetBody0Rel().GetTargets() == [root.AppendChild("FR_thigh")]
    assert joint.GetBody1Rel().GetTargets() == [root.AppendChild("FR_calf")]
    # Flattening keeps each body where the kinematic chain puts it: FR foot at hip + thigh offset + 2 x 0.213 down.
    foot = UsdGeom.XformCache().GetLocalToWorldTransform(stage.GetPrimAtPath(root.AppendChild("FR_foot")))
    assert tuple(foot.ExtractTranslation()) == pytest.approx((0.1934, -(0.0465 + 0.0955), -0.426), abs=1e-6)


def test_cache_is_reused(built):
    stamp = built.stat().st_mtime_ns
    assert go2_usd.ensure_go2_usd() == built
    assert built.stat().st_mtime_ns == stamp


def test_changed_description_gets_a_new_file(built, monkeypatch):
    monkeypatch.setattr(go2_description, "FOOT_RADIUS", 0.023)
    assert go2_usd.go2_usd_path() != built


def test_half_written_or_deleted_file_is_rebuilt(built):
    text = built.read_text()
    built.write_text(text[: len(text) // 2])  # a build killed mid-write, or a truncated copy
    assert not go2_usd.is_complete(built)
    assert go2_usd.ensure_go2_usd() == built
    assert built.read_text() == text
    built.unlink()
    assert go2_usd.ensure_go2_usd() == built
    assert built.read_text() == text and go2_usd.is_complete(built)


def test_file_without_digest_is_rebuilt(built):
    """A file some other writer left (an older version, a copy without its digest) is not trusted."""
    digest = built.with_name(built.name + ".sha256")
    digest.unlink()
    stamp = built.stat().st_mtime_ns
    assert go2_usd.ensure_go2_usd() == built
    assert digest.is_file() and built.stat().st_mtime_ns != stamp


def test_shipped_asset_equals_a_fresh_build(built):
    """The package's own asset is what the converter makes of the current description, byte for byte. After a
    change to the description: ``python -m go2_locomotion.assets.go2_usd --ship``."""
    shipped = go2_usd.shipped_usd_path()
    assert shipped is not None, f"no {go2_usd.asset_name()} in {go2_usd.SHIPPED_DIR}: rebuild it with --ship"
    assert shipped.name == built.name and shipped.read_bytes() == built.read_bytes()
    assert sorted(p.name for p in go2_usd.SHIPPED_DIR.glob("go2-*.usda")) == [shipped.name]  # no stale copy


def test_own_description_spawns_the_shipped_file_without_building(tmp_path, monkeypatch):
    monkeypatch.setenv(go2_usd.CACHE_ENV_VAR, str(tmp_path))
    monkeypatch.setattr(go2_usd, "installed_converter_version", lambda: None)  # as inside Isaac Sim: no converter
    assert go2_usd.resolve_usd_path(go2_usd.OFFLINE_USD) == str(go2_usd.shipped_usd_path())
    assert list(tmp_path.iterdir()) == []


def test_changed_description_builds_in_the_cache_in_force(built, tmp_path, monkeypatch):
    monkeypatch.setattr(go2_description, "FOOT_RADIUS", 0.023)
    assert go2_usd.shipped_usd_path() is None
    monkeypatch.setenv(go2_usd.CACHE_ENV_VAR, str(tmp_path / "later"))
    moved = Path(go2_usd.resolve_usd_path(go2_usd.OFFLINE_USD))
    assert moved.parent == tmp_path / "later" and moved.name != built.name and go2_usd.is_complete(moved)
    assert "double radius = 0.023" in moved.read_text() or "0.023" in moved.read_text()


def test_changed_description_without_the_converter_says_how_to_build(tmp_path, monkeypatch):
    monkeypatch.setattr(go2_description, "FOOT_RADIUS", 0.023)
    monkeypatch.setenv(go2_usd.CACHE_ENV_VAR, str(tmp_path))
    monkeypatch.setattr(go2_usd, "installed_converter_version", lambda: None)
    with pytest.raises(RuntimeError, match=r"mujoco-usd-converter==0\.6\.1 \(found None\).*usd-build"):
        go2_usd.resolve_usd_path(go2_usd.OFFLINE_USD)


def test_other_usd_paths_are_left_alone(tmp_path, monkeypatch):
    monkeypatch.setenv(go2_usd.CACHE_ENV_VAR, str(tmp_path))
    hosted = "https://example.invalid/Robots/Unitree/Go2/go2.usd"
    assert go2_usd.resolve_usd_path(hosted) == hosted
    assert go2_usd.resolve_usd_path("/data/my_go2.usd") == "/data/my_go2.usd"
    assert list(tmp_path.iterdir()) == []  # nothing built
