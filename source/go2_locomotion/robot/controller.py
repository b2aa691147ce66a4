"""Deploy-side reference controller: robot state in Unitree SDK2 motor order in, joint targets and PD gains in
SDK2 order out, through the bundle's ONNX policy. Imports numpy, onnxruntime and PyYAML only (no Isaac Lab).

It rebuilds the training observation term by term from ``deploy.yaml``, each term as :mod:`.observations` defines
it (clip, then scale; the training noise is not applied), and turns the policy output into joint position targets
the way Isaac Lab's joint-position action does (policy-output clip, ``offset + scale x action``, per-joint clip). The
tests check both against Isaac Lab's own managers to 1e-5.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .bundle import NUM_JOINTS, Bundle, history_length, load_bundle
from .observations import OBSERVATION_TERMS, StepContext, trot_clock
from .observations import projected_gravity_from_quat as projected_gravity_from_quat  # its older home
from .state import RobotState as RobotState  # its older home: the deploy guide imports it from here


@dataclass
class ControlOutput:
    """One policy step's result, per joint in SDK2 motor order."""

    action: np.ndarray
    """``[12]`` raw policy output (after the policy-output clip)."""
    joint_pos_target: np.ndarray
    """``[12]`` position targets [rad] for the joint PD loop."""
    kp: np.ndarray
    """``[12]`` position gains [N m/rad]."""
    kd: np.ndarray
    """``[12]`` velocity gains [N m s/rad]."""


class ReferenceController:
    """The bundle's policy at the policy rate, as a robot-side program would run it.

    Args:
        bundle: A bundle folder or a loaded :class:`Bundle`.
    """

    def __init__(self, bundle: Bundle | str | Path):
        self.bundle = bundle if isinstance(bundle, Bundle) else load_bundle(bundle)
        b = self.bundle
        self.policy_dt: float = float(b.field("timing.policy_dt"))
        """Seconds between two calls of :meth:`act`."""
        self._to_policy = b.policy_to_sdk2  # x_policy = x_sdk2[policy_to_sdk2]
        self._to_sdk2 = b.sdk2_to_policy  # x_sdk2 = x_policy[sdk2_to_policy]
        self._default_pos = b.joint_array("joints.default_position")
        self._default_vel = b.joint_array("joints.default_velocity")
        self._scale = b.joint_array("action.scale")
        self._offset = b.joint_array("action.offset")
        clip = b.field("action.clip")
        self._clip = None if clip is None else np.asarray(clip, dtype=np.float64).reshape(NUM_JOINTS, 2)
        self._output_clip = b.field("action.policy_output_clip")
        self.kp: np.ndarray = self.to_sdk2(b.joint_array("actuators.kp"))
        """``[12]`` Kp in SDK2 order [N m/rad]."""
        self.kd: np.ndarray = self.to_sdk2(b.joint_array("actuators.kd"))
        """``[12]`` Kd in SDK2 order [N m s/rad]."""
        self._terms = b.field("observation.terms")
        self._input_name = b.field("policy.input.name")
        self._last_action = np.zeros(NUM_JOINTS)
        self._steps = 0
        self.history_length: int = history_length(b.manifest, b.manifest_path)
        """Frames the policy reads (``observation.history.length``; 1: the current one)."""
        self._past: deque[np.ndarray] = deque(maxlen=self.history_length - 1)

    def to_policy(self, sdk2: np.ndarray) -> np.ndarray:
        """Reorder a per-joint ``[12]`` array from SDK2 motor order to the policy's joint order."""
        return np.asarray(sdk2, dtype=np.float64)[self._to_policy]

    def to_sdk2(self, policy: np.ndarray) -> np.ndarray:
        """Reorder a per-joint ``[12]`` array from the policy's joint order to SDK2 motor order."""
        return np.asarray(policy, dtype=np.float64)[self._to_sdk2]

    def reset(self) -> None:
        """Forget the previous action and the observation history, and restart the trot clock (an episode
        start)."""
        self._last_action = np.zeros(NUM_JOINTS)
        self._steps = 0
        self._past.clear()

    def gait_phase(
        self, steps: int, period: float, command: np.ndarray | None = None, standing_command: float | None = None
    ) -> np.ndarray:
        """``[2]`` sin, cos of the trot clock after ``steps`` policy steps, for a cycle of ``period`` seconds;
        ``[0, 0]`` when ``standing_command`` is given and the command's norm is at most it (told to stand)."""
        return trot_clock(steps, period, self.policy_dt, command, standing_command)

    def observation(self, state: RobotState) -> np.ndarray:
        """The policy observation ``[O]`` (float32) for ``state``, term by term as in training without noise: with a
        history, the frames of earlier :meth:`act` calls since the reset, oldest first (the first of them repeated
        until there are enough), then this state's. Reading it changes nothing."""
        return self._stacked(self.frame(state))

    def _stacked(self, frame: np.ndarray) -> np.ndarray:
        if self.history_length == 1:
            return frame
        past = list(self._past)
        padding = [past[0] if past else frame] * (self.history_length - 1 - len(past))
        return np.concatenate([*padding, *past, frame])

    def frame(self, state: RobotState) -> np.ndarray:
        """One frame of the observation ``[O / history_length]`` (float32): the bundle's terms for ``state``."""
        context = StepContext(
            self.to_policy, self._default_pos, self._default_vel, self._last_action, self._steps, self.policy_dt
        )
        parts = []
        for term in self._terms:
            value = OBSERVATION_TERMS[term["function"]].rebuild(state, term, context).reshape(-1)
            if value.shape[0] != term["width"]:
                raise ValueError(
                    f"observation term {term['name']!r}: state gives {value.shape[0]} values, the policy expects "
                    f"{term['width']}"
                )
            if term.get("clip") is not None:
                value = np.clip(value, term["clip"][0], term["clip"][1])
            if term.get("scale") is not None:
                value = value * np.asarray(term["scale"], dtype=np.float64)
            parts.append(value)
        return np.concatenate(parts).astype(np.float32)

    def act(self, state: RobotState) -> ControlOutput:
        """Run the policy on ``state``; returns the targets and gains in SDK2 order and remembers the action (and
        the observation frame, with a history)."""
        frame = self.frame(state)
        obs = self._stacked(frame)
        (action,) = self.bundle.session.run(None, {self._input_name: obs[None, :]})
        action = action[0].astype(np.float64)
        if self._output_clip is not None:
            action = np.clip(action, -self._output_clip, self._output_clip)
        target = self._offset + self._scale * action
        if self._clip is not None:
            target = np.clip(target, self._clip[:, 0], self._clip[:, 1])
        self._last_action = action
        self._steps += 1
        if self.history_length > 1:
            self._past.append(frame)
        return ControlOutput(self.to_sdk2(action), self.to_sdk2(target), self.kp.copy(), self.kd.copy())
