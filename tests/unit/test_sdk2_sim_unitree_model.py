"""The simulated Go2 runs a model laid out as Unitree's own ``go2.xml`` (unitree_mujoco) is, as a user has it: the
trunk named ``base_link`` on a free joint and placed above the world origin, collision primitives given by a default
class in geom group 3 (the group of this package's ground), each foot's contact sphere on the calf with an empty
foot body at its centre, and visual mesh geoms whose files are not there. The model is made here from the
description's MJCF (no Unitree file is read)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from go2_locomotion import pretrained
from go2_locomotion.assets import go2_description as go2
from go2_locomotion.robot.bundle import load_bundle
from go2_locomotion.sdk2.messages import command_arrays, lowcmd
from go2_locomotion.sdk2.safety import JointLimits
from go2_locomotion.sdk2.sim import SimulatedGo2, check_model_file

MESH_FOLDER = "meshes_not_here"


def _vector(text: str | None) -> np.ndarray:
    return np.array([float(v) for v in (text or "0 0 0").split()])


def unitree_like(folder, *, colliding_mesh: bool = False):
    """Write the description re-laid out as Unitree's model is (see the module); returns its path. With
    ``colliding_mesh`` one missing mesh is drawn by a geom that collides."""
    root = ET.fromstring(go2.build_spec(spawn_height=0.0).to_xml())
    root.find("compiler").set("meshdir", MESH_FOLDER)
    for geom in root.iter("geom"):
        geom.set("class", "collision")
    defaults = ET.Element("default")
    visual = ET.SubElement(ET.SubElement(defaults, "default", {"class": "visual"}), "geom")
    visual.attrib.update(type="mesh", contype="0", conaffinity="0", group="2")
    ET.SubElement(ET.SubElement(defaults, "default", {"class": "collision"}), "geom", group="3")
    root.insert(1, defaults)
    asset = ET.Element("asset")
    for name in ("trunk_shell", "calf_shell"):
        ET.SubElement(asset, "mesh", file=f"{name}.obj")
    root.insert(2, asset)
    bodies = {body.get("name"): body for body in root.iter("body")}
    trunk = bodies.pop(go2.BASE_BODY)
    trunk.set("name", "base_link")
    trunk.set("pos", "0 0 0.445")  # Unitree's trunk starts above the world origin
    ET.SubElement(trunk, "geom", {"class": "visual", "mesh": "trunk_shell"})
    for leg in go2.LEGS:
        calf, foot = bodies[f"{leg}_calf"], bodies[f"{leg}_foot"]
        sphere = foot.find("geom")
        sphere.set("pos", " ".join(f"{v:g}" for v in _vector(foot.get("pos")) + _vector(sphere.get("pos"))))
        for child in list(foot):  # the foot body stays, empty, at the sphere's centre
            foot.remove(child)
        calf.insert(list(calf).index(foot), sphere)
        shell = ET.SubElement(calf, "geom", {"class": "visual", "mesh": "calf_shell"})
        if colliding_mesh:
            shell.attrib.update(contype="1", conaffinity="1")
    path = folder / "go2_like_unitree.xml"
    ET.ElementTree(root).write(path)
    return path


@pytest.fixture(scope="module")
def bundle():
    return load_bundle(pretrained.bundle())


def _stand(bundle, model_file=None, seconds: float = 1.0) -> SimulatedGo2:
    """The robot after ``seconds`` of the standing pose at the policy's gains."""
    robot, limits = SimulatedGo2(bundle, model_file=model_file, say=lambda _: None), JointLimits.from_bundle(bundle)
    stand = command_arrays(lowcmd(limits.standing, np.zeros(12), np.zeros(12), limits.kp, limits.kd))
    for _ in range(round(seconds / robot.dt)):
        robot.physics_step(stand)
    return robot


def test_missing_visual_meshes_are_left_out_in_one_line(tmp_path):
    path = unitree_like(tmp_path)
    notes = check_model_file(path)
    assert len(notes) == 1 and "\n" not in notes[0]
    assert notes[0].startswith(f"visual meshes not found ({tmp_path / MESH_FOLDER / 'trunk_shell.obj'} and 1 more)")


def test_a_missing_mesh_that_collides_is_refused_naming_the_file(tmp_path):
    path = unitree_like(tmp_path, colliding_mesh=True)
    missing = tmp_path / MESH_FOLDER / "calf_shell.obj"
    with pytest.raises(ValueError, match=rf"^--model {path}: mesh file {missing} not found, and a colliding geom") as e:
        check_model_file(path)
    assert "put the model's mesh files there" in str(e.value) and "\n" not in str(e.value)


def test_the_unitree_layout_stands_like_the_description(bundle, tmp_path):
    robot = _stand(bundle, unitree_like(tmp_path), seconds=2.0)
    plant = robot.plant
    assert robot.model.body(plant.base_id).name == "base_link"
    # the trunk's group-3 geoms left the ground's group: the ray down from above the trunk meets the floor
    assert plant.base_height() == pytest.approx(robot.data.qpos[2], abs=1e-12)
    assert not plant.is_down() and plant.foot_contacts().all()
    # the feet (spheres on the calves) carry the robot: the LowState's foot forces add up to its weight
    robot.accelerometer()
    weight = robot.model.body_subtreemass[plant.base_id] * 9.81
    assert robot.foot_forces().sum() == pytest.approx(weight, rel=0.03)
    # as high as the description (the feet's 10 g bodies are gone, so not to the micrometre)
    assert robot.data.qpos[2] == pytest.approx(_stand(bundle, seconds=2.0).data.qpos[2], abs=0.005)


def test_it_starts_with_its_feet_on_the_floor(bundle, tmp_path):
    robot = SimulatedGo2(bundle, model_file=unitree_like(tmp_path), say=lambda _: None)
    feet = [robot.data.xpos[robot.model.body(name).id][2] for name in go2.FOOT_BODIES]
    assert min(feet) == pytest.approx(go2.FOOT_RADIUS + 0.002, abs=1e-9)  # 2 mm above the floor, not 0.445 m up


def test_a_model_without_a_free_joint_is_refused(tmp_path):
    root = ET.fromstring(unitree_like(tmp_path).read_text())
    trunk = next(body for body in root.iter("body") if body.get("name") == "base_link")
    trunk.remove(trunk.find("joint"))
    (tmp_path / "fixed.xml").write_text(ET.tostring(root, encoding="unicode"))
    with pytest.raises(ValueError, match=r"^--model \S+fixed.xml: the model has no free joint: the trunk must float"):
        check_model_file(tmp_path / "fixed.xml")
