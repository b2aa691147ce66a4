"""Deploy bundle without a simulator: the reference controller's arithmetic by hand, the bundle checks and their
messages, the MuJoCo sim-to-sim pieces."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from deploy_fixtures import NEWTON_ORDER, PHYSX_ORDER, default_position, make_bundle

from go2_locomotion import sim2sim
from go2_locomotion.robot.bundle import SDK2_JOINT_ORDER, BundleError, load_bundle
from go2_locomotion.robot.controller import ReferenceController, RobotState, projected_gravity_from_quat

SDK2_DEFAULTS = np.array([default_position(n) for n in SDK2_JOINT_ORDER])


def _state(**overrides) -> RobotState:
    fields = {
        "joint_pos": SDK2_DEFAULTS + 0.01 * np.arange(12),  # motor j is 0.01 j rad off its default
        "joint_vel": np.arange(12) * 1.0,
        "base_ang_vel": np.array([0.1, 0.2, 0.3]),
        "projected_gravity": np.array([0.0, 0.0, -1.0]),
        "base_lin_vel": np.array([0.4, 0.5, 0.6]),
        "command": np.array([0.7, 0.8, 0.9]),
    }
    fields.update(overrides)
    return RobotState(**fields)


@pytest.mark.parametrize("order", [PHYSX_ORDER, NEWTON_ORDER], ids=["physx", "newton"])
def test_observation_and_targets_by_hand(order, tmp_path):
    controller = ReferenceController(make_bundle(tmp_path, order))
    obs = controller.observation(_state())
    assert obs.dtype == np.float32 and obs.shape == (48,)
    np.testing.assert_allclose(obs[:12], [0.4, 0.5, 0.6, 0.1, 0.2, 0.3, 0, 0, -1, 0.7, 0.8, 0.9], atol=1e-7)
    # policy joint i is SDK2 motor SDK2_JOINT_ORDER.index(name): its offset is 0.01 x that index
    motors = np.array([SDK2_JOINT_ORDER.index(n) for n in order])
    np.testing.assert_allclose(obs[12:24], 0.01 * motors, atol=1e-6)
    np.testing.assert_allclose(obs[24:36], motors, atol=1e-6)
    np.testing.assert_array_equal(obs[36:48], np.zeros(12))  # no previous action yet
    if order == PHYSX_ORDER:  # FL_hip is motor 3, FR_hip motor 0, RL_hip 9, RR_hip 6
        np.testing.assert_allclose(obs[12:16], [0.03, 0.0, 0.09, 0.06], atol=1e-6)

    out = controller.act(_state())
    # the policy passes obs[12:24] through: action = 0.01 j for motor j, target = default + 0.25 x action
    np.testing.assert_allclose(out.action, 0.01 * np.arange(12), atol=1e-6)
    np.testing.assert_allclose(out.joint_pos_target, SDK2_DEFAULTS + 0.0025 * np.arange(12), atol=1e-6)
    np.testing.assert_array_equal(out.kp, np.full(12, 25.0))
    # the previous action comes back as the last 12 observations, in policy order
    np.testing.assert_allclose(controller.observation(_state())[36:48], 0.01 * motors, atol=1e-6)
    controller.reset()
    np.testing.assert_array_equal(controller.observation(_state())[36:48], np.zeros(12))
    # an explicit previous action (SDK2 order) wins over the remembered one
    explicit = controller.observation(_state(last_action=np.arange(12) * 0.5))[36:48]
    np.testing.assert_allclose(explicit, motors * 0.5, atol=1e-6)


def test_clip_scale_and_output_clip(tmp_path):
    def edit(manifest):
        manifest["observation"]["terms"][5].update(clip=[-2.0, 2.0], scale=0.05)  # joint_vel
        manifest["action"]["policy_output_clip"] = 0.05
        manifest["action"]["clip"] = [[-1.45, 10.0] if "calf" in n else [-10.0, 10.0] for n in NEWTON_ORDER]

    controller = ReferenceController(make_bundle(tmp_path, NEWTON_ORDER, edit=edit))
    obs = controller.observation(_state())
    motors = np.array([SDK2_JOINT_ORDER.index(n) for n in NEWTON_ORDER])
    np.testing.assert_allclose(obs[24:36], np.clip(motors, -2, 2) * 0.05, atol=1e-7)  # clip first, then scale
    out = controller.act(_state())
    np.testing.assert_allclose(out.action, np.minimum(0.01 * np.arange(12), 0.05), atol=1e-6)
    calves = [2, 5, 8, 11]
    np.testing.assert_allclose(out.joint_pos_target[calves], -1.45, atol=1e-6)  # -1.5 + 0.25 x 0.05 < -1.45


def test_projected_gravity_from_quaternion():
    np.testing.assert_allclose(projected_gravity_from_quat([1, 0, 0, 0]), [0, 0, -1], atol=1e-12)
    # rolled 90 deg about x (left side down): gravity points along the body's -y... by hand: R^T (0,0,-1)
    c = math.sqrt(0.5)
    np.testing.assert_allclose(projected_gravity_from_quat([c, c, 0, 0]), [0, -1, 0], atol=1e-12)
    # pitched 90 deg nose-down about y: gravity along the body's +x
    np.testing.assert_allclose(projected_gravity_from_quat([c, 0, c, 0]), [1, 0, 0], atol=1e-12)
    # yaw alone changes nothing
    np.testing.assert_allclose(
        projected_gravity_from_quat([math.cos(0.4), 0, 0, math.sin(0.4)]), [0, 0, -1], atol=1e-12
    )


def test_missing_state_is_named(tmp_path):
    controller = ReferenceController(make_bundle(tmp_path))
    with pytest.raises(ValueError, match="base_lin_vel is required"):
        controller.observation(_state(base_lin_vel=None))
    with pytest.raises(ValueError, match="projected_gravity or base_quat"):
        controller.observation(_state(projected_gravity=None))


def _edit_error(tmp_path, edit, expected_type=BundleError):
    folder = make_bundle(tmp_path / "b", edit=edit)
    with pytest.raises(expected_type) as raised:
        load_bundle(folder)
    return str(raised.value)


def test_missing_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="bundle folder not found"):
        load_bundle(tmp_path / "nowhere")
    folder = make_bundle(tmp_path / "b")
    (folder / "policy.onnx").unlink()
    with pytest.raises(FileNotFoundError, match=r"policy\.onnx.*'policy\.file'"):
        load_bundle(folder)
    (folder / "deploy.yaml").unlink()
    with pytest.raises(FileNotFoundError, match=r"deploy\.yaml: deploy manifest not found"):
        load_bundle(folder)


def test_unknown_joint_is_named(tmp_path):
    def edit(m):
        m["joints"]["names"][4] = "FL_knee_joint"

    message = _edit_error(tmp_path, edit)
    assert "deploy.yaml" in message and "'joints.names'" in message and "FL_knee_joint" in message
    assert "FR_hip_joint" in message  # what is accepted


def test_width_mismatch_with_onnx_is_named(tmp_path):
    def edit(m):
        m["observation"]["terms"].append({"name": "extra", "function": "base_lin_vel", "start": 48, "width": 3})
        m["observation"]["width"] = 51

    message = _edit_error(tmp_path, edit)
    assert "'policy.input.width'" in message or "'observation.width'" in message
    assert "policy.onnx" in message and "48" in message


def test_inconsistent_fields_are_named(tmp_path):
    def swap_map(m):
        mapping = m["joints"]["policy_to_sdk2"]
        mapping[0], mapping[1] = mapping[1], mapping[0]

    assert "'joints.policy_to_sdk2'" in _edit_error(tmp_path / "1", swap_map)
    assert "'observation.terms[0].function'" in _edit_error(
        tmp_path / "2", lambda m: m["observation"]["terms"][0].update(function="base_pos_z")
    )
    assert "'action.scale' must hold 12" in _edit_error(tmp_path / "3", lambda m: m["action"].update(scale=[0.25]))
    assert "'timing' is missing" in _edit_error(tmp_path / "4", lambda m: m.pop("timing"))
    assert "'policy.sha256' does not match" in _edit_error(tmp_path / "5", lambda m: m["policy"].update(sha256="0"))
    assert "'format'" in _edit_error(tmp_path / "6", lambda m: m.update(format="other/2"))
    assert "'policy.input.name'" in _edit_error(tmp_path / "7", lambda m: m["policy"]["input"].update(name="x"))
    assert "'physics.substeps' must be a positive integer" in _edit_error(
        tmp_path / "8", lambda m: m.update(physics={"substeps": 0})
    )
    assert "'physics.integrator' is 'verlet'" in _edit_error(
        tmp_path / "9", lambda m: m.update(physics={"integrator": "verlet"})
    )
    assert "'physics.robot_friction.static'" in _edit_error(
        tmp_path / "10", lambda m: m.update(physics={"robot_friction": {"static": [0.8], "dynamic": [0.6, 0.6]}})
    )


def test_controller_imports_no_isaac_lab_or_torch():
    code = (
        "import sys, go2_locomotion.robot.controller, go2_locomotion.sim2sim; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('isaaclab', 'torch', 'isaacsim', 'warp')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_dc_motor_torque_by_hand():
    kw = {"kp": 25.0, "kd": 0.5, "effort_limit": 23.7, "saturation": 23.7, "velocity_limit": 30.0}
    assert sim2sim.dc_motor_torque(0.1, 0.0, 0.0, **kw) == pytest.approx(2.5)
    assert sim2sim.dc_motor_torque(2.0, 0.0, 0.0, **kw) == pytest.approx(23.7)  # 50 N m asked, clipped
    # at +15 rad/s the motor can push forward with only 23.7 x (1 - 0.5) = 11.85 N m
    assert sim2sim.dc_motor_torque(2.0, 0.0, 15.0, **kw) == pytest.approx(11.85)
    # braking against that motion is limited by the effort limit only: 23.7 x (-1 - 0.5) -> -23.7
    assert sim2sim.dc_motor_torque(-2.0, 0.0, 15.0, **kw) == pytest.approx(-23.7)


def test_parse_segments():
    assert sim2sim.parse_segments("stand:2:0,0,0 fwd:1.5:0.5,0,0")[1] == sim2sim.Segment("fwd", 1.5, (0.5, 0.0, 0.0))
    for bad in ("stand:2", "stand:x:0,0,0", "stand:2:0,0", "stand:-1:0,0,0", ""):
        with pytest.raises(ValueError, match="--commands"):
            sim2sim.parse_segments(bad)


def test_sim2sim_plant_state_timing_and_pd(tmp_path):
    bundle = load_bundle(make_bundle(tmp_path))
    plant = sim2sim.Go2Plant(bundle, substeps=2)
    model, data = plant.model, plant.data
    assert model.opt.timestep == pytest.approx(0.0025)
    np.testing.assert_allclose(plant.state(np.zeros(3)).joint_pos, SDK2_DEFAULTS, atol=1e-12)
    # feet on the floor: the lowest foot sphere touches z = 0 (2 mm clearance)
    feet = [data.xpos[model.body(f"{leg}_foot").id][2] for leg in ("FL", "FR", "RL", "RR")]
    assert min(feet) == pytest.approx(0.022 + 0.002, abs=1e-9)

    # one policy step in free fall = 4 PD updates x 2 MuJoCo steps = 0.02 s: v = g t, drop ~ g t^2 / 2
    falling = sim2sim.Go2Plant(bundle, substeps=2, base_height=1.0)
    falling.apply(SDK2_DEFAULTS, np.full(12, 25.0), np.full(12, 0.5))
    assert falling.data.qvel[2] == pytest.approx(-9.81 * 0.02, rel=1e-9)
    assert 1.0 - falling.data.qpos[2] == pytest.approx(0.5 * 9.81 * 0.02**2, abs=3e-4)
    np.testing.assert_allclose(falling.state(np.zeros(3)).joint_pos, SDK2_DEFAULTS, atol=1e-3)  # the PD holds
    # a 0.1 rad target step on FR_hip (motor 0) alone pushes FR_hip alone, towards the target
    falling.apply(SDK2_DEFAULTS + 0.1 * (np.arange(12) == 0), np.full(12, 25.0), np.full(12, 0.5))
    moved = falling.state(np.zeros(3)).joint_pos - SDK2_DEFAULTS
    assert moved[0] > 0.01 and np.all(np.abs(moved[1:]) < 0.01)


def test_sim2sim_steps_mujoco_as_the_bundle_records(tmp_path):
    import mujoco

    def recorded(m):
        m["physics"] = {
            "backend": "newton",
            "substeps": 3,
            "integrator": "euler",
            "cone": "elliptic",
            "robot_friction": {"static": [0.5, 0.7], "dynamic": [0.4, 0.4], "event": "physics_material"},
        }

    bundle = load_bundle(make_bundle(tmp_path / "recorded", edit=recorded))
    plant = sim2sim.Go2Plant(bundle)
    assert plant.substeps == 3 and plant.model.opt.timestep == pytest.approx(0.005 / 3)
    assert plant.model.opt.integrator == mujoco.mjtIntegrator.mjINT_EULER
    assert plant.model.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC
    np.testing.assert_allclose(plant.model.geom_friction[:, 0], 0.6)  # the floor and every robot geom
    # --substeps overrides the bundle's
    assert sim2sim.Go2Plant(bundle, substeps=1).substeps == 1
    with pytest.raises(ValueError, match="substeps must be a positive integer"):
        sim2sim.Go2Plant(bundle, substeps=0)
    # a bundle written before deploy.yaml recorded them: the Go2 tasks' Newton settings of that time
    legacy = sim2sim.Go2Plant(load_bundle(make_bundle(tmp_path / "legacy")))
    assert legacy.settings == sim2sim.UNRECORDED


def test_sim2sim_fall_detection(tmp_path):
    import mujoco

    plant = sim2sim.Go2Plant(load_bundle(make_bundle(tmp_path)))
    assert not plant.is_down()  # standing on its feet
    c = math.sqrt(0.5)
    plant.data.qpos[3:7] = [c, c, 0.0, 0.0]  # rolled 90 deg
    plant.data.qpos[2] = 0.5
    mujoco.mj_forward(plant.model, plant.data)
    assert plant.is_down()
    plant.data.qpos[3:7] = [1.0, 0.0, 0.0, 0.0]
    plant.data.qpos[2] = 0.12  # level but low
    mujoco.mj_forward(plant.model, plant.data)
    assert plant.is_down()
    plant.data.qpos[2] = 0.0525  # lying on its belly: the trunk box (half height 0.057) touches the floor
    mujoco.mj_forward(plant.model, plant.data)
    assert plant.base_touches_floor()


def test_sim2sim_trunk_contact_force_is_the_robots_weight_when_the_trunk_alone_carries_it(tmp_path):
    """The terrain grid's fall criterion (Isaac Lab's: the trunk's net contact force): 0 standing; on its back at
    rest with every other body's collisions off, the ground carries the whole robot through the trunk, so the force
    is the summed body masses times g (by hand, 15.246 kg x 9.81 m/s^2 = 149.57 N for this description)."""
    import mujoco

    plant = sim2sim.Go2Plant(load_bundle(make_bundle(tmp_path)))
    model, data = plant.model, plant.data
    assert plant.base_contact_force() == 0.0  # standing on its feet
    for geom in range(model.ngeom):
        if geom not in plant.base_geoms and geom not in plant.ground_geoms:
            model.geom_contype[geom] = model.geom_conaffinity[geom] = 0
    model.dof_damping[6:] = 5.0  # the unpowered legs come to rest within the 4 s
    data.qpos[3:7] = [0.0, 1.0, 0.0, 0.0]  # rolled 180 deg: on its back
    data.qpos[2] = 0.2
    mujoco.mj_forward(model, data)
    for _ in range(round(4.0 / model.opt.timestep)):
        mujoco.mj_step(model, data)
    weight = float(model.body_mass.sum()) * 9.81
    assert weight == pytest.approx(149.57, abs=0.01)
    assert plant.base_contact_force() == pytest.approx(weight, rel=5e-3)


def test_sim2sim_height_scan_on_the_floor(tmp_path):
    points = [[x, y] for x in (-0.8, 0.0, 0.8) for y in (-0.5, 0.5)]

    def edit(m):  # a one-term height-scan policy
        m["observation"]["terms"] = [
            {
                "name": "height_scan",
                "function": "height_scan",
                "start": 0,
                "width": 6,
                "scale": None,
                "clip": [-1.0, 1.0],
                "params": {"offset": 0.5, "sensor_offset_z": 0.0, "points_xy": points},
            }
        ]
        m["observation"]["width"] = 6

    bundle = load_bundle(make_bundle(tmp_path, edit=edit, weight=np.zeros((12, 6))))
    plant = sim2sim.Go2Plant(bundle)
    heights = plant.height_scan()
    np.testing.assert_allclose(heights, np.full(6, plant.data.qpos[2]), atol=1e-9)
    obs = ReferenceController(bundle).observation(
        RobotState(np.zeros(12), np.zeros(12), np.zeros(3), height_scan=heights)
    )
    np.testing.assert_allclose(obs, np.full(6, plant.data.qpos[2] - 0.5), atol=1e-6)


def test_sim2sim_script_writes_report_and_plot(tmp_path):
    folder = make_bundle(tmp_path / "bundle")
    commands = "stand:0.5:0,0,0 forward:0.5:0.5,0,0"
    result = subprocess.run(
        [sys.executable, "scripts/sim2sim.py", "--bundle", str(folder), "--commands", commands],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads((folder / "sim2sim" / "sim2sim.json").read_text())
    assert (folder / "sim2sim" / "sim2sim.png").stat().st_size > 10_000
    assert [s["name"] for s in report["segments"]] == ["stand", "forward"]
    assert len(report["series"]["time"]) == 50  # 1 s at 50 Hz
    assert report["settings"]["pd_rate_hz"] == 200.0 and report["settings"]["policy_rate_hz"] == 50.0
    # the pass-through policy softens the joints: the robot stays up but does not walk
    forward = report["segments"][1]
    assert not forward["fell"] and forward["xy_error_rms"] > 0.3
    assert 0.15 < forward["base_height_mean"] < 0.34


def test_sim2sim_errors_are_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "scripts/sim2sim.py", "--bundle", str(tmp_path / "missing")], capture_output=True, text=True
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("error: ") and "missing" in result.stderr
    folder = make_bundle(tmp_path / "bundle")
    result = subprocess.run(
        [sys.executable, "scripts/sim2sim.py", "--bundle", str(folder), "--commands", "go:1:1"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "--commands: segment 'go:1:1'" in result.stderr
    result = subprocess.run(
        [sys.executable, "scripts/sim2sim.py", "--bundle", str(folder), "--substeps", "0"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == "error: --substeps must be a positive integer, got 0"


def test_sim2sim_video_writes_a_gif_on_a_cpu_machine(tmp_path):
    """Off-screen MuJoCo without a display or GPU: scripts/sim2sim.py picks OSMesa (./setup.sh installs libosmesa6).
    --video and --output into folders that do not exist yet: created."""
    from PIL import Image

    folder = make_bundle(tmp_path / "bundle")
    gif = tmp_path / "new" / "deeper" / "run.gif"
    command = [sys.executable, "scripts/sim2sim.py", "--bundle", str(folder), "--commands", "stand:0.3:0,0,0"]
    env = {k: v for k, v in os.environ.items() if k not in ("MUJOCO_GL", "PYOPENGL_PLATFORM", "DISPLAY")}
    output = tmp_path / "reports" / "sim2sim"
    result = subprocess.run(
        [*command, "--video", str(gif), "--output", str(output)], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert (output / "sim2sim.json").is_file()
    with Image.open(gif) as image:
        # 0.3 s at 50 Hz, a frame every 3rd step: 5 frames, drawn (not one flat colour)
        assert image.n_frames == 5
        assert len(np.unique(np.asarray(image.convert("RGB")).reshape(-1, 3), axis=0)) > 8


def test_sim2sim_video_without_an_offscreen_context_says_why(tmp_path):
    folder = make_bundle(tmp_path / "bundle")
    gif = tmp_path / "run.gif"
    command = [sys.executable, "scripts/sim2sim.py", "--bundle", str(folder), "--commands", "stand:0.2:0,0,0"]
    # GLFW needs a display: without one there is no context to render into
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "PYOPENGL_PLATFORM")}
    env["MUJOCO_GL"] = "glfw"
    result = subprocess.run([*command, "--video", str(gif)], capture_output=True, text=True, env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--video: MuJoCo cannot render here" in result.stderr and "MUJOCO_GL" in result.stderr
    assert not gif.exists()


@pytest.mark.parametrize(
    ("environ", "nvidia", "osmesa", "expected"),
    [
        ({"MUJOCO_GL": "glfw"}, True, True, "glfw"),  # the user's choice wins
        ({"DISPLAY": ":0"}, False, True, None),  # a display: MuJoCo's default
        ({}, True, True, "egl"),  # a GPU driver
        ({}, False, True, "osmesa"),  # CPU only, Mesa's software renderer
        ({}, False, False, None),  # nothing: MuJoCo says why when asked to render
    ],
)
def test_offscreen_platform_choice(environ, nvidia, osmesa, expected):
    from go2_locomotion.offscreen import pick

    assert pick(dict(environ), nvidia=nvidia, osmesa=osmesa) == expected
