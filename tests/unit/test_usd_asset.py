"""The offline Go2 USD: built from the description without network, flat body layout, cached."""

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
