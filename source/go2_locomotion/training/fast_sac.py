"""The FastSAC learner's former home: ``go2_locomotion.training.fast_sac:FastSAC`` (and its distribution and critic
classes), as run folders saved before :mod:`go2_locomotion.fast_sac` existed name them in their ``params/agent.yaml``,
resolve to the same classes: this module re-exports the package's names (its ``__all__``)."""

from ..fast_sac import *  # noqa: F403 (the alias serves every name the package exports)
from ..fast_sac import __all__ as __all__
