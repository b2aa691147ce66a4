"""Sim-to-sim check: a deploy bundle driving this package's Go2 description in plain MuJoCo on the CPU.

The policy runs at the manifest's policy rate through :class:`~.controller.ReferenceController` (so the robot
side of the bundle is exercised exactly as deployed); a PD loop with the manifest's gains and DC-motor torque
limits runs at the physics rate (``1 / sim_dt``, 200 Hz), each torque held over ``substeps`` MuJoCo steps as the
training simulator does. A scripted command sequence is followed; per segment the report gives the
velocity-tracking error, the trunk height and whether the robot fell. No Isaac Lab is imported.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import mujoco
import numpy as np

from .. import pretrained
from ..assets import go2_description as go2
from ..errors import USAGE_EXIT_CODE, UsageError, exit_on_usage_error
from .bundle import SDK2_JOINT_ORDER, Bundle, BundleError, load_bundle
from .controller import ReferenceController, RobotState, projected_gravity_from_quat


@dataclass(frozen=True)
class Segment:
    """One leg of the scripted command sequence."""

    name: str
    """Label in the report."""
    duration_s: float
    """Length [s]."""
    command: tuple[float, float, float]
    """lin x [m/s], lin y [m/s], yaw rate [rad/s], in the trunk's heading frame."""


DEFAULT_SEGMENTS = (
    Segment("stand", 2.0, (0.0, 0.0, 0.0)),
    Segment("forward", 3.0, (0.5, 0.0, 0.0)),
    Segment("lateral", 3.0, (0.0, 0.3, 0.0)),
    Segment("turn", 3.0, (0.0, 0.0, 1.0)),
    Segment("stop", 2.0, (0.0, 0.0, 0.0)),
)
"""Stand, forward 0.5 m/s, lateral 0.3 m/s, turn 1 rad/s, stop: 13 s."""

FLOOR_FRICTION = 0.8
"""Floor friction coefficient (MuJoCo takes the larger of the two geoms'); training randomises 0.6-0.8."""

FALL_GRAVITY_Z = -0.5
"""A robot whose projected gravity z rises above this (tilt beyond 60 deg) has fallen."""

FALL_BASE_HEIGHT = 0.15
"""A trunk below this height above the floor [m] has fallen."""

SETTLE_S = 0.5
"""Seconds at the start of each segment left out of the tracking error (the command just changed)."""

_SCAN_GROUP = 3
"""MuJoCo geom group of the floor; height-scan rays see only this group."""


def parse_segments(text: str) -> list[Segment]:
    """Parse ``"name:seconds:vx,vy,wz name:seconds:vx,vy,wz ..."``.

    Raises:
        ValueError: A segment is malformed; the message names it and shows the accepted form.
    """
    segments = []
    for token in text.split():
        parts = token.split(":")
        try:
            name, duration, command = parts
            values = tuple(float(v) for v in command.split(","))
            seconds = float(duration)
        except ValueError:
            raise ValueError(
                f"--commands: segment {token!r} is not name:seconds:vx,vy,wz (e.g. forward:3:0.5,0,0)"
            ) from None
        if len(values) != 3 or seconds <= 0 or not all(math.isfinite(v) for v in values):
            raise ValueError(f"--commands: segment {token!r} needs 3 finite velocities and a positive duration")
        segments.append(Segment(name, seconds, values))
    if not segments:
        raise ValueError("--commands: no segment given")
    return segments


def build_model(
    bundle: Bundle, substeps: int, base_height: float | None = None
) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """The Go2 description on a floor plane, MuJoCo time step ``sim_dt / substeps``, in the manifest's default
    pose, its trunk origin at ``base_height`` [m] or, when ``None``, with its feet on the floor."""
    spec = go2.build_spec(spawn_height=0.0)
    spec.option.timestep = float(bundle.field("timing.sim_dt")) / substeps
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.cone = mujoco.mjtCone.mjCONE_PYRAMIDAL
    for geom in spec.geoms:
        geom.friction[0] = FLOOR_FRICTION
    # Looks only (no effect on the physics): a checkered floor that shows the motion, a light, a robot colour.
    spec.add_texture(
        name="checker",
        type=mujoco.mjtTexture.mjTEXTURE_2D,
        builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER,
        rgb1=[0.32, 0.36, 0.42],
        rgb2=[0.22, 0.25, 0.3],
        width=256,
        height=256,
    )
    floor_look = spec.add_material(name="floor", texrepeat=[8, 8], reflectance=0.1)
    floor_look.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "checker"
    for geom in spec.geoms:
        geom.rgba = [0.85, 0.55, 0.2, 1.0]
    light = spec.worldbody.add_light(pos=[0, 0, 4], dir=[0, 0, -1], diffuse=[0.8, 0.8, 0.8])
    light.type = mujoco.mjtLightType.mjLIGHT_DIRECTIONAL
    spec.worldbody.add_geom(
        name="floor",
        type=mujoco.mjtGeom.mjGEOM_PLANE,
        size=[0, 0, 0.05],
        friction=[FLOOR_FRICTION, 0.005, 1e-4],
        group=_SCAN_GROUP,
        material="floor",
    )
    model = spec.compile()
    data = mujoco.MjData(model)
    default = dict(zip(bundle.field("joints.names"), bundle.joint_array("joints.default_position"), strict=True))
    for name, position in default.items():
        data.qpos[model.jnt_qposadr[model.joint(name).id]] = position
    mujoco.mj_kinematics(model, data)
    lowest = min(data.xpos[model.body(foot).id][2] for foot in go2.FOOT_BODIES)
    data.qpos[2] = go2.FOOT_RADIUS - lowest + 0.002 if base_height is None else base_height
    mujoco.mj_forward(model, data)
    return model, data


class Go2Plant:
    """The MuJoCo Go2 as the robot side sees it: state out and joint targets in, in SDK2 motor order.

    Args:
        bundle: The bundle whose timing, gains and torque limits the PD loop uses.
        substeps: MuJoCo steps per physics step; each PD torque is held over them.
        base_height: Initial trunk height [m]; ``None`` puts the feet on the floor.
    """

    def __init__(self, bundle: Bundle, substeps: int = 2, base_height: float | None = None):
        if substeps < 1:
            raise ValueError(f"substeps must be a positive integer, got {substeps}")
        model, data = build_model(bundle, substeps, base_height)
        self.model, self.data, self.substeps = model, data, substeps
        self.decimation = int(bundle.field("timing.decimation"))
        to_sdk2 = bundle.sdk2_to_policy
        self.limits = {
            key: bundle.joint_array(f"actuators.{key}")[to_sdk2]
            for key in ("effort_limit", "saturation_effort", "velocity_limit")
        }
        joints = [model.joint(name) for name in SDK2_JOINT_ORDER]
        self.qpos_adr = np.array([model.jnt_qposadr[j.id] for j in joints])
        self.dof_adr = np.array([model.jnt_dofadr[j.id] for j in joints])
        self.base_id = model.body(go2.BASE_BODY).id
        self.base_geoms = {g for g in range(model.ngeom) if model.geom_bodyid[g] == self.base_id}
        self.floor_id = model.geom("floor").id
        scan = [t for t in bundle.field("observation.terms") if t["function"] == "height_scan"]
        self.scan = scan[0]["params"] if scan else None

    def rotation(self) -> np.ndarray:
        return self.data.xmat[self.base_id].reshape(3, 3)

    def base_lin_vel(self) -> np.ndarray:
        """``[3]`` velocity of the trunk's centre of mass in the trunk frame [m/s], as Isaac Lab observes it."""
        omega = self.data.qvel[3:6]  # a free joint's angular velocity is in the body frame
        return self.rotation().T @ self.data.qvel[0:3] + np.cross(omega, self.model.body_ipos[self.base_id])

    def state(self, command: np.ndarray) -> RobotState:
        d = self.data
        return RobotState(
            joint_pos=d.qpos[self.qpos_adr].copy(),
            joint_vel=d.qvel[self.dof_adr].copy(),
            base_ang_vel=d.qvel[3:6].copy(),
            base_quat=d.qpos[3:7].copy(),
            base_lin_vel=self.base_lin_vel(),
            command=command,
            height_scan=self.height_scan() if self.scan else None,
        )

    def height_scan(self) -> np.ndarray:
        """Scanner height above the floor at each scan point, rays cast straight down from yaw-aligned points."""
        rot = self.rotation()
        yaw = math.atan2(rot[1, 0], rot[0, 0])
        c, s = math.cos(yaw), math.sin(yaw)
        base = self.data.xpos[self.base_id]
        scanner_z = base[2] + self.scan["sensor_offset_z"]
        heights = []
        geomid = np.zeros(1, dtype=np.int32)
        groups = np.zeros(6, dtype=np.uint8)
        groups[_SCAN_GROUP] = 1
        for x, y in self.scan["points_xy"]:
            start = np.array([base[0] + c * x - s * y, base[1] + s * x + c * y, scanner_z + 20.0])
            distance = mujoco.mj_ray(self.model, self.data, start, np.array([0.0, 0.0, -1.0]), groups, 1, -1, geomid)
            heights.append(scanner_z - (start[2] - distance) if distance >= 0 else 0.0)
        return np.asarray(heights)

    def apply(self, joint_pos_target: np.ndarray, kp: np.ndarray, kd: np.ndarray) -> None:
        """Advance one policy step: ``decimation`` PD updates (SDK2 order), each held over ``substeps``."""
        for _ in range(self.decimation):
            q, qd = self.data.qpos[self.qpos_adr], self.data.qvel[self.dof_adr]
            self.data.qfrc_applied[self.dof_adr] = dc_motor_torque(
                joint_pos_target,
                q,
                qd,
                kp,
                kd,
                self.limits["effort_limit"],
                self.limits["saturation_effort"],
                self.limits["velocity_limit"],
            )
            for _ in range(self.substeps):
                mujoco.mj_step(self.model, self.data)

    def joint_torque(self) -> np.ndarray:
        """``[12]`` torque of the last PD update, SDK2 order [N m]."""
        return self.data.qfrc_applied[self.dof_adr].copy()

    def joint_limits(self) -> np.ndarray:
        """``[12, 2]`` joint position limits, SDK2 order [rad]."""
        return np.array([self.model.jnt_range[self.model.joint(name).id] for name in SDK2_JOINT_ORDER])

    def foot_contacts(self) -> np.ndarray:
        """``[4]`` whether each foot (FL, FR, RL, RR) touches the floor."""
        down = np.zeros(len(go2.FOOT_BODIES), dtype=bool)
        feet = {self.model.body(name).id: k for k, name in enumerate(go2.FOOT_BODIES)}
        for contact in self.data.contact[: self.data.ncon]:
            if self.floor_id in (contact.geom1, contact.geom2):
                other = contact.geom2 if contact.geom1 == self.floor_id else contact.geom1
                k = feet.get(int(self.model.geom_bodyid[other]))
                if k is not None:
                    down[k] = True
        return down

    def foot_velocities_xy(self) -> np.ndarray:
        """``[4, 2]`` horizontal velocity of each foot's origin in the world [m/s]."""
        velocity = np.zeros(6)
        out = []
        for name in go2.FOOT_BODIES:
            mujoco.mj_objectVelocity(
                self.model, self.data, mujoco.mjtObj.mjOBJ_BODY, self.model.body(name).id, velocity, 0
            )
            out.append(velocity[3:5].copy())  # [angular, linear], world frame
        return np.asarray(out)

    def is_down(self) -> bool:
        """Fallen: tilted beyond 60 deg, trunk below 0.15 m, or trunk touching the floor."""
        gravity = projected_gravity_from_quat(self.data.qpos[3:7])
        return bool(gravity[2] > FALL_GRAVITY_Z or self.data.qpos[2] < FALL_BASE_HEIGHT or self.base_touches_floor())

    def base_touches_floor(self) -> bool:
        for contact in self.data.contact[: self.data.ncon]:
            pair = {contact.geom1, contact.geom2}
            if self.floor_id in pair and pair & self.base_geoms:
                return True
        return False


def dc_motor_torque(target, q, qd, kp, kd, effort_limit, saturation, velocity_limit) -> np.ndarray:
    """PD torque clipped by Isaac Lab's DC-motor model: the available torque falls linearly with speed from
    ``saturation`` at rest to zero at ``velocity_limit``, and never exceeds ``effort_limit``."""
    torque = kp * (target - q) - kd * qd
    top = np.minimum(saturation * (1.0 - qd / velocity_limit), effort_limit)
    bottom = np.maximum(saturation * (-1.0 - qd / velocity_limit), -effort_limit)
    return np.clip(torque, bottom, top)


def run(
    bundle_dir: Path | str | Bundle,
    segments: list[Segment] | tuple[Segment, ...] = DEFAULT_SEGMENTS,
    *,
    substeps: int = 2,
    video: Path | None = None,
) -> dict:
    """Run the bundle through ``segments``; returns the report (per-segment figures and the time series).

    Args:
        bundle_dir: Folder with ``deploy.yaml`` and ``policy.onnx``.
        segments: The command sequence.
        substeps: MuJoCo steps per physics step (the training simulator runs 2).
        video: Write an animated GIF of the run here (needs an off-screen OpenGL context).

    Raises:
        FileNotFoundError, BundleError: The bundle is missing or inconsistent.
        VideoUnavailable: ``video`` was asked for and MuJoCo cannot render here.
    """
    bundle = bundle_dir if isinstance(bundle_dir, Bundle) else load_bundle(bundle_dir)
    controller = ReferenceController(bundle)
    robot = Go2Plant(bundle, substeps)
    model, data = robot.model, robot.data
    recorder = GifRecorder(video, model) if video is not None else None
    policy_dt = float(bundle.field("timing.policy_dt"))

    series = {k: [] for k in ("time", "segment", "cmd_vx", "cmd_vy", "cmd_wz", "vx", "vy", "wz", "height", "down")}
    t = 0.0
    for index, segment in enumerate(segments):
        command = np.asarray(segment.command, dtype=np.float64)
        for _ in range(max(1, round(segment.duration_s / policy_dt))):
            out = controller.act(robot.state(command))
            robot.apply(out.joint_pos_target, out.kp, out.kd)
            t += policy_dt
            lin_vel = robot.base_lin_vel()
            height, down = float(data.qpos[2]), robot.is_down()
            for key, value in zip(
                series, (t, index, *command, lin_vel[0], lin_vel[1], data.qvel[5], height, down), strict=True
            ):
                series[key].append(float(value) if key not in ("segment", "down") else value)
            if recorder is not None:
                recorder.capture(data)

    return {
        "bundle": str(bundle.directory),
        "task": bundle.field("task"),
        "policy_sha256": bundle.field("policy.sha256"),
        "settings": {
            "policy_rate_hz": 1.0 / policy_dt,
            "pd_rate_hz": 1.0 / float(bundle.field("timing.sim_dt")),
            "mujoco_timestep_s": float(model.opt.timestep),
            "substeps": substeps,
            "floor_friction": FLOOR_FRICTION,
            "settle_s": SETTLE_S,
            "mujoco_version": mujoco.__version__,
        },
        "segments": [_segment_report(i, s, series) for i, s in enumerate(segments)],
        "fell": any(series["down"]),
        "video": str(recorder.save(policy_dt)) if recorder is not None else None,
        "series": series,
    }


def _segment_report(index: int, segment: Segment, series: dict) -> dict:
    rows = [i for i, s in enumerate(series["segment"]) if s == index]
    settled = [i for i in rows if series["time"][i] - series["time"][rows[0]] >= SETTLE_S - 1e-9] or rows

    def mean(key, idx):
        return float(np.mean([series[key][i] for i in idx]))

    vx_err = np.array([series["vx"][i] - series["cmd_vx"][i] for i in settled])
    vy_err = np.array([series["vy"][i] - series["cmd_vy"][i] for i in settled])
    wz_err = np.array([series["wz"][i] - series["cmd_wz"][i] for i in settled])
    fall_times = [series["time"][i] for i in rows if series["down"][i]]
    return {
        **asdict(segment),
        "mean_velocity": [mean("vx", settled), mean("vy", settled), mean("wz", settled)],
        "xy_error_rms": float(np.sqrt(np.mean(vx_err**2 + vy_err**2))),
        "yaw_rate_error_rms": float(np.sqrt(np.mean(wz_err**2))),
        "base_height_mean": mean("height", rows),
        "base_height_min": float(min(series["height"][i] for i in rows)),
        "fell": bool(fall_times),
        "fallen_at_s": fall_times[0] if fall_times else None,
    }


def write_report(report: dict, out_dir: Path) -> tuple[Path, Path]:
    """Write ``sim2sim.json`` and ``sim2sim.png`` (commanded vs measured velocity, trunk height)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, png_path = out_dir / "sim2sim.json", out_dir / "sim2sim.png"
    json_path.write_text(json.dumps(report, indent=2))

    s = report["series"]
    fig, axes = plt.subplots(4, 1, figsize=(9, 9), sharex=True)
    for ax, (measured, commanded, label) in zip(
        axes,
        (("vx", "cmd_vx", "lin x [m/s]"), ("vy", "cmd_vy", "lin y [m/s]"), ("wz", "cmd_wz", "yaw rate [rad/s]")),
        strict=False,  # the fourth panel is the trunk height
    ):
        ax.plot(s["time"], s[commanded], "k--", label="commanded")
        ax.plot(s["time"], s[measured], label="measured (trunk frame)")
        ax.set_ylabel(label)
    axes[0].legend(loc="upper right")
    axes[3].plot(s["time"], s["height"])
    axes[3].set_ylabel("trunk height [m]")
    axes[3].set_xlabel("time [s]")
    start = 0.0
    for segment in report["segments"]:
        for ax in axes:
            ax.axvline(start, color="0.8", lw=0.8)
        axes[0].text(start + 0.05, axes[0].get_ylim()[1], segment["name"], va="top", fontsize=8)
        start += segment["duration_s"]
    fig.suptitle(
        f"sim2sim (MuJoCo {report['settings']['mujoco_version']}): {report['task']}"
        + (" - fell" if report["fell"] else "")
    )
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return json_path, png_path


class VideoUnavailable(RuntimeError):
    """``--video`` was asked for and MuJoCo cannot open an off-screen OpenGL context here."""


class GifRecorder:
    """Headless frames of the run into an animated GIF (Pillow), one frame every ``every`` policy steps.

    Raises:
        VideoUnavailable: MuJoCo cannot create an off-screen OpenGL context here; the message says how to get one.
    """

    def __init__(self, path: Path, model: mujoco.MjModel, width: int = 320, height: int = 240, every: int = 3):
        try:
            self.renderer = mujoco.Renderer(model, height, width)
        except Exception as error:  # the GL backends raise several unrelated types
            raise VideoUnavailable(
                f"--video: MuJoCo cannot render here ({type(error).__name__}); set MUJOCO_GL=egl (GPU driver) or "
                "MUJOCO_GL=osmesa (CPU, needs libOSMesa)"
            ) from None
        self.path, self.every, self.frames, self.calls = Path(path), every, [], 0
        self.camera = mujoco.MjvCamera()
        self.camera.distance, self.camera.elevation, self.camera.azimuth = 1.6, -20.0, 135.0
        self.options = mujoco.MjvOption()
        self.options.geomgroup[:] = 1  # the floor sits in the height scanner's group, hidden by default

    def capture(self, data: mujoco.MjData) -> None:
        """Called after each policy step; keeps every ``every``-th frame."""
        self.calls += 1
        if self.calls % self.every:
            return
        self.camera.lookat[:] = data.qpos[:3]
        self.renderer.update_scene(data, self.camera, self.options)
        self.frames.append(self.renderer.render().copy())

    def save(self, policy_dt: float) -> Path:
        from PIL import Image

        # a 16-colour palette without dithering keeps the GIF small (~0.1 MB per second of motion at 320 x 240)
        images = [Image.fromarray(frame).quantize(colors=16, dither=Image.Dither.NONE) for frame in self.frames]
        images[0].save(
            self.path,
            save_all=True,
            append_images=images[1:],
            duration=int(1000 * policy_dt * self.every),
            loop=0,
            optimize=True,
        )
        return self.path


def main(argv: list[str] | None = None) -> int:
    """``scripts/sim2sim.py``: run a bundle in MuJoCo, write the JSON report and the plot; exit 2 on a usage error."""
    import argparse

    parser = argparse.ArgumentParser(description="Run a Go2 deploy bundle in plain MuJoCo (CPU) over a command script.")
    parser.add_argument(
        "--bundle",
        required=True,
        help="Folder with deploy.yaml and policy.onnx, or 'pretrained' (the shipped Go2-Flat policy's bundle; reports "
        "then go to logs/pretrained/go2_flat/).",
    )
    default = " ".join(f"{s.name}:{s.duration_s:g}:{','.join(f'{v:g}' for v in s.command)}" for s in DEFAULT_SEGMENTS)
    parser.add_argument("--commands", default=default, help=f"Segments name:seconds:vx,vy,wz (default: {default}).")
    parser.add_argument("--substeps", type=int, default=2, help="MuJoCo steps per 200 Hz physics step (default 2).")
    parser.add_argument("--output", type=Path, default=None, help="Report folder (default: <bundle>/sim2sim).")
    parser.add_argument("--video", type=Path, default=None, help="Also write an animated GIF (needs MUJOCO_GL).")
    parser.add_argument(
        "--grid",
        default=None,
        help='Instead of --commands: evaluate on a command grid like scripts/evaluate.py ("default", from the '
        'bundle\'s command ranges, or "name:vx,vy,wz ..."); writes evaluation.json/.png (default folder: '
        "<bundle>/evaluation_mujoco).",
    )
    parser.add_argument("--duration", type=float, default=20.0, help="With --grid: episode length [s].")
    parser.add_argument("--settle", type=float, default=2.0, help="With --grid: seconds before figures count.")
    args = parser.parse_args(argv)
    if exit_on_usage_error(lambda: _resolve_bundle(args)) == USAGE_EXIT_CODE:
        return USAGE_EXIT_CODE
    if args.grid is not None:
        return exit_on_usage_error(lambda: _grid_main(args))

    def _main() -> int:
        # only the user's mistakes become one-line errors; a failure inside the run keeps its traceback
        try:
            segments = parse_segments(args.commands)
            bundle = load_bundle(args.bundle)
        except (FileNotFoundError, BundleError, ValueError) as error:
            raise UsageError(str(error)) from None
        try:
            report = run(bundle, segments, substeps=args.substeps, video=args.video)
        except VideoUnavailable as error:
            raise UsageError(str(error)) from None
        json_path, png_path = write_report(report, args.output or args.work_dir / "sim2sim")
        print(
            f"{'segment':<10} {'cmd (vx, vy, wz)':<20} {'measured':<22} {'xy err':>7} {'wz err':>7} {'height':>7}  fell"
        )
        for seg in report["segments"]:
            cmd = ", ".join(f"{v:.2f}" for v in seg["command"])
            got = ", ".join(f"{v:+.2f}" for v in seg["mean_velocity"])
            print(
                f"{seg['name']:<10} {cmd:<20} {got:<22} {seg['xy_error_rms']:7.3f} {seg['yaw_rate_error_rms']:7.3f} "
                f"{seg['base_height_mean']:7.3f}  {'yes' if seg['fell'] else 'no'}"
            )
        print(f"[go2] wrote {json_path} and {png_path}" + (f" and {report['video']}" if report["video"] else ""))
        return 0

    return exit_on_usage_error(_main)


def _resolve_bundle(args) -> int:
    """``--bundle pretrained`` -> the shipped bundle; sets ``args.work_dir``, where reports go by default: next to
    the bundle, or ``logs/pretrained/<policy>/`` for the shipped one (never into the installed package)."""
    args.work_dir = Path(args.bundle)
    if args.bundle == pretrained.KEYWORD:
        try:
            args.bundle = pretrained.bundle()
        except pretrained.NoPretrainedPolicy as error:
            raise UsageError(f"--bundle pretrained: {error}") from None
        args.work_dir = pretrained.output_dir("Go2-Flat")
    args.bundle = Path(args.bundle)
    return 0


def _grid_main(args) -> int:
    """``--grid``: the evaluation grid in MuJoCo, reported as ``scripts/evaluate.py`` reports Isaac Lab."""
    from ..evaluation import mujoco as grid_eval
    from ..evaluation import report as reports
    from ..evaluation.grid import check_timing, parse_grid

    try:
        check_timing(args.duration, args.settle)
        bundle = load_bundle(args.bundle)
        grid = None if args.grid == "default" else parse_grid(args.grid)
    except (FileNotFoundError, BundleError, ValueError) as error:
        raise UsageError(str(error)) from None
    report = grid_eval.run_grid(bundle, grid, duration_s=args.duration, settle_s=args.settle, substeps=args.substeps)
    json_path, png_path = reports.write(report, args.output or args.work_dir / "evaluation_mujoco")
    print(reports.table(report))
    print(f"[go2] wrote {json_path} and {png_path}")
    return 0
