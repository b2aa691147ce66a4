"""The sim-to-sim animation: off-screen MuJoCo frames of the run, written as an animated GIF."""

from __future__ import annotations

from pathlib import Path

import mujoco


class VideoUnavailable(RuntimeError):
    """``--video`` was asked for and MuJoCo cannot open an off-screen OpenGL context here."""


class GifRecorder:
    """Headless frames of the run into an animated GIF (Pillow), one frame every ``every`` policy steps. With
    ``deferred`` a frame is only the robot's pose when captured, rendered when the GIF is saved: a real-time loop
    (``sim_go2.py --video``) then pays a copy, not a render (rendering in it left LowStates 68-96 ms old against
    the controller's 60 ms bound on a 2-core CPU).

    Raises:
        VideoUnavailable: MuJoCo cannot create an off-screen OpenGL context here; the message says how to get one.
    """

    def __init__(
        self,
        path: Path,
        model: mujoco.MjModel,
        width: int = 320,
        height: int = 240,
        every: int = 3,
        deferred: bool = False,
    ):
        try:
            self.renderer = mujoco.Renderer(model, height, width)
        except Exception as error:  # the GL backends raise several unrelated types
            raise VideoUnavailable(
                f"--video: MuJoCo cannot render here ({type(error).__name__}); set MUJOCO_GL=egl (GPU driver) or "
                "MUJOCO_GL=osmesa (CPU: apt install libosmesa6)"
            ) from None
        self.path, self.every, self.frames, self.calls = Path(path), every, [], 0
        self.model, self.poses = model, [] if deferred else None
        self.camera = mujoco.MjvCamera()
        self.camera.distance, self.camera.elevation, self.camera.azimuth = 1.6, -20.0, 135.0
        self.options = mujoco.MjvOption()
        self.options.geomgroup[:] = 1  # the floor sits in the height scanner's group, hidden by default

    def capture(self, data: mujoco.MjData) -> None:
        """Called after each policy step; keeps every ``every``-th frame."""
        self.calls += 1
        if self.calls % self.every:
            return
        if self.poses is not None:
            self.poses.append(data.qpos.copy())
            return
        self._render(data)

    def _render(self, data: mujoco.MjData) -> None:
        self.camera.lookat[:] = data.qpos[:3]
        self.renderer.update_scene(data, self.camera, self.options)
        self.frames.append(self.renderer.render().copy())

    @property
    def captured(self) -> int:
        """Frames captured so far (rendered or not)."""
        return len(self.frames) + len(self.poses or ())

    def save(self, policy_dt: float) -> Path:
        from PIL import Image  # Pillow: only --video needs it

        if self.poses:
            scratch = mujoco.MjData(self.model)
            for qpos in self.poses:
                scratch.qpos[:] = qpos
                mujoco.mj_forward(self.model, scratch)
                self._render(scratch)
            self.poses.clear()

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
