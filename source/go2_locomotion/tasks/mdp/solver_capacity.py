"""A guard for the MuJoCo-Warp solver buffers sized in the task config (``njmax`` / ``nconmax``)."""

from __future__ import annotations

import logging

import numpy as np
from isaaclab.managers import ManagerTermBase

from ...compat import private_api

logger = logging.getLogger(__name__)

_FIELDS = {
    "NEFC": "njmax (constraint rows per environment)",
    "NARROWPHASE": "nconmax (contacts per environment)",
    "BROADPHASE": "nconmax (contacts per environment)",
}
"""MuJoCo-Warp overflow kinds and the ``sim.physics.newton_mjwarp.solver_cfg`` field that sizes each."""


class warn_on_solver_overflow(ManagerTermBase):
    """Interval event: log one warning when MuJoCo-Warp reports a buffer overflow in any environment.

    Constraints and contacts beyond ``njmax`` / ``nconmax`` are dropped without an error, so robots would sink
    into the terrain unnoticed; the capacities are sized from measured peaks (docs/performance.md) and
    this check says when a run exceeds them. Reads one ``[num_envs]`` flag array per call; a no-op on other
    physics backends.
    """

    def __init__(self, cfg, env):
        super().__init__(cfg, env)
        self.reported = False
        """Whether the warning was given (once per environment instance)."""

    def __call__(self, env, env_ids) -> None:
        if self.reported:
            return
        # the active physics manager class; only Newton's MuJoCo-Warp solver carries the flags
        data = private_api.mujoco_warp_data(env.sim.physics_manager)
        if data is None:
            return
        flags = int(np.bitwise_or.reduce(data.overflow.numpy()))
        if flags:
            from mujoco_warp import OverflowType  # only on Newton, whose solver set the flags

            kinds = [kind.name for kind in OverflowType if flags & kind]
            fields = sorted({_FIELDS.get(kind, kind) for kind in kinds})
            logger.warning(
                "MuJoCo-Warp overflow %s: constraints or contacts were dropped; raise "
                "env.sim.physics.newton_mjwarp.solver_cfg %s",
                "/".join(kinds),
                ", ".join(fields),
            )
            self.reported = True
