"""The "Go2 command" panel on the viser page: sliders for forward / lateral / yaw rate, Stop, Release, a choice of
robot (all or one), Follow, and a readout of the steered robot's command and measured velocity.

Built with viser's public GUI API on the package's visualizer's server; every control only changes the shared
:class:`~.steering.Steering` state (viser calls back on its own thread); the simulation thread applies it.
"""

from __future__ import annotations

import contextlib

from ..robot.steering import AXES, UNITS, Steering

ALL_ROBOTS = "all"
READOUT_EVERY = 25
"""Policy steps between two readout updates (a message to every browser each time)."""


class CommandPanel:
    """The panel; :meth:`update_readout` refreshes the measured velocity (called from the simulation thread)."""

    def __init__(self, server, steering: Steering):
        self.steering = steering
        self._syncing = False
        gui = server.gui
        with gui.add_folder("Go2 command"):
            self.sliders = []
            for axis, (name, unit) in enumerate(zip(AXES, UNITS, strict=True)):
                low, high = steering.ranges[axis]
                slider = gui.add_slider(f"{name} [{unit}]", min=low, max=high, step=0.05, initial_value=0.0)
                slider.on_update(self._on_slider(axis))
                self.sliders.append(slider)
            stop = gui.add_button("Stop")
            stop.on_click(lambda _: steering.stop())
            release = gui.add_button("Release (random commands)")
            release.on_click(lambda _: steering.release())
            options = (ALL_ROBOTS, *(str(i) for i in range(steering.num_envs)))
            self.robot = gui.add_dropdown("robot", options=options, initial_value=ALL_ROBOTS)
            self.robot.on_update(
                lambda _: steering.select(None if self.robot.value == ALL_ROBOTS else int(self.robot.value))
            )
            self.follow = gui.add_checkbox("follow", initial_value=False)
            self.follow.on_update(lambda _: steering.set_follow(self.follow.value))
            self.readout = gui.add_markdown("")
        steering.listeners.append(self._mirror)
        self._steps = 0

    def _on_slider(self, axis: int):
        def changed(_event) -> None:
            if not self._syncing:
                self.steering.set_axis(axis, self.sliders[axis].value)

        return changed

    def _mirror(self, state) -> None:
        """Show a change made elsewhere (keyboard, Stop) on the page without feeding it back."""
        self._syncing = True
        try:
            for slider, value in zip(self.sliders, state.velocity, strict=True):
                with contextlib.suppress(Exception):
                    if abs(slider.value - value) > 1e-6:
                        slider.value = value
        finally:
            self._syncing = False

    def update_readout(self, command, measured) -> None:
        """``command`` and ``measured`` (forward, lateral, yaw rate) of the robot shown; every few steps."""
        self._steps += 1
        if self._steps % READOUT_EVERY:
            return
        robot = self.steering.state.shown_robot
        rows = [
            f"| robot {robot} | command | measured |",
            "|---|---|---|",
            *(
                f"| {name} [{unit}] | {c:+.2f} | {m:+.2f} |"
                for name, unit, c, m in zip(AXES, UNITS, command, measured, strict=True)
            ),
        ]
        self.readout.content = "\n".join(rows)
