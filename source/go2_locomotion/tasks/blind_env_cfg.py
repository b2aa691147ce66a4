"""Go2-Rough-Blind: Go2-Rough with an actor that reads only what a Go2 measures, over a short history.

The critic keeps the privileged ``critic`` group (asymmetric actor-critic); the ``teacher`` group is Go2-Rough's
policy observation, read by a teacher policy when the blind actor is distilled from the shipped Go2-Rough.
"""

from __future__ import annotations

from isaaclab.utils import configclass

from .velocity_env_cfg import Go2RoughEnvCfg, ObservationsCfg


@configclass
class Go2RoughBlindEnvCfg(Go2RoughEnvCfg):
    """Go2-Rough with the blind policy group ``[N, 470]`` (:class:`ObservationsCfg.BlindPolicyCfg`)."""

    def __post_init__(self):
        super().__post_init__()
        self.observations.teacher = self.observations.policy
        self.observations.critic = ObservationsCfg.CriticCfg()
        self.observations.policy = ObservationsCfg.BlindPolicyCfg()
