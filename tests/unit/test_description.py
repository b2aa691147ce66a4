"""The Go2 description: kinematics, masses and mirroring, checked against figures worked out by hand."""

import mujoco
import numpy as np
import pytest

from go2_locomotion.assets import go2
from go2_locomotion.assets import go2_description as d

UNITREE_TOTAL_MASS = 15.206408  # kg: trunk 6.921 + 4 x (hip 0.678 + thigh 1.152 + calf 0.241352)


@pytest.fixture(scope="module")
def model():
    return d.build_spec(spawn_height=0.0).compile()


def _body(model, name):
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)


def test_bodies_and_joints(model):
    bodies = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, i) for i in range(1, model.nbody)]
    assert bodies == list(d.BODY_NAMES)
    assert len(bodies) == 17
    hinges = [
        mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, i)
        for i in range(model.njnt)
        if model.jnt_type[i] == mujoco.mjtJoint.mjJNT_HINGE
    ]
    assert hinges == list(d.JOINT_NAMES)
    assert len(hinges) == 12


def test_total_mass_matches_unitree(model):
    total = mujoco.mj_getTotalmass(model)
    # 15.206408 + 4 feet x 0.01 = 15.246408
    assert total == pytest.approx(15.246408, abs=1e-9)
    assert abs(total - UNITREE_TOTAL_MASS) / UNITREE_TOTAL_MASS < 0.02
    assert d.TOTAL_MASS == pytest.approx(total)


def test_joint_axes_and_ranges(model):
    for name in d.JOINT_NAMES:
        jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
        axis = [1, 0, 0] if "hip" in name else [0, 1, 0]
        np.testing.assert_allclose(model.jnt_axis[jid], axis)
        assert model.jnt_limited[jid]
    front = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "FR_thigh_joint")
    rear = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "RL_thigh_joint")
    np.testing.assert_allclose(model.jnt_range[front], [-1.5708, 3.4907])
    np.testing.assert_allclose(model.jnt_range[rear], [-0.5236, 4.5379])


def _inertia_tensor(model, body):
    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, model.body_iquat[body])
    rot = mat.reshape(3, 3)
    return rot @ np.diag(model.body_inertia[body]) @ rot.T


def test_right_legs_mirror_left_legs(model):
    # Reflecting through the x-z plane flips the sign of y in positions and of Ixy, Iyz in the tensor.
    flip_y = np.diag([1.0, -1.0, 1.0])
    for part in ("hip", "thigh", "calf"):
        left, right = _body(model, f"FL_{part}"), _body(model, f"FR_{part}")
        np.testing.assert_allclose(model.body_pos[right], flip_y @ model.body_pos[left], atol=1e-12)
        np.testing.assert_allclose(model.body_ipos[right], flip_y @ model.body_ipos[left], atol=1e-12)
        np.testing.assert_allclose(
            _inertia_tensor(model, right), flip_y @ _inertia_tensor(model, left) @ flip_y, atol=1e-12
        )
    # The front-left hip's centre of mass sits 5.4 mm behind its joint; the rear-left one 5.4 mm in front.
    assert model.body_ipos[_body(model, "FL_hip")][0] == pytest.approx(-0.0054)
    assert model.body_ipos[_body(model, "RL_hip")][0] == pytest.approx(0.0054)


def test_standing_pose_height(model):
    """Forward kinematics of the standing pose: trunk height above the lowest foot sphere."""
    data = mujoco.MjData(model)
    pose = {"hip": 0.1, "F_thigh": 0.8, "R_thigh": 1.0, "calf": -1.5}
    for name in d.JOINT_NAMES:
        leg, part = name.split("_")[:2]
        key = f"{leg[0]}_thigh" if part == "thigh" else part
        value = pose[key] * (-1 if (part == "hip" and leg[1] == "R") else 1)
        data.qpos[model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)]] = value
    mujoco.mj_kinematics(model, data)
    feet_z = [data.xpos[_body(model, foot)][2] for foot in d.FOOT_BODIES]
    # In the sagittal plane the leg spans 0.213 (cos 0.8 + cos 0.7) = 0.3113 m at the front and
    # 0.213 (cos 1.0 + cos 0.5) = 0.3020 m at the rear; 0.1 rad of abduction tilts it (x cos 0.1) and lifts the
    # 0.0955 m thigh offset by 0.0955 sin 0.1.
    abduct = lambda span: span * np.cos(0.1) - 0.0955 * np.sin(0.1)  # noqa: E731
    front, rear = abduct(0.213 * (np.cos(0.8) + np.cos(0.7))), abduct(0.213 * (np.cos(1.0) + np.cos(0.5)))
    assert [-z for z in feet_z] == pytest.approx([front, front, rear, rear], abs=1e-9)
    assert front == pytest.approx(0.3002, abs=1e-4) and rear == pytest.approx(0.2910, abs=1e-4)
    # trunk height over the ground, averaged over the feet, plus the 0.022 m foot radius
    assert go2.STANDING_BASE_HEIGHT == pytest.approx((front + rear) / 2 + d.FOOT_RADIUS, abs=1e-9)
    assert round(go2.STANDING_BASE_HEIGHT, 3) == 0.318


def test_mjcf_round_trip():
    text = d.to_mjcf()
    reloaded = mujoco.MjModel.from_xml_string(text)
    assert reloaded.nbody == 18 and reloaded.nu == 0
    assert "<mesh" not in text  # collision primitives only: nothing to fetch


def test_deploy_side_joint_names_are_the_descriptions():
    from go2_locomotion.robot.bundle import NUM_JOINTS, SDK2_JOINT_ORDER

    assert sorted(SDK2_JOINT_ORDER) == sorted(d.JOINT_NAMES) and NUM_JOINTS == len(d.JOINT_NAMES)
    # SDK2 lists the right leg of each pair first
    assert SDK2_JOINT_ORDER[:3] == ("FR_hip_joint", "FR_thigh_joint", "FR_calf_joint")
