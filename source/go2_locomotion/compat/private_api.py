"""The one place that relies on other libraries' private or undocumented API, checked once against the installed
versions.

:func:`check` verifies that every name the package relies on exists, and raises :class:`PrivateApiError` naming
the missing one and the installed version, instead of a failure (or a silently skipped feature) deep inside a run.
"""

from __future__ import annotations

import functools
import importlib.metadata
import inspect


class PrivateApiError(RuntimeError):
    """An attribute this package relies on is missing from an installed library."""


def _require(condition: bool, what: str, distribution: str) -> None:
    if not condition:
        try:
            version = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            version = "not installed"
        raise PrivateApiError(
            f"{what} is missing from {distribution} {version}; go2_locomotion was written against "
            f"rsl-rl-lib 5.5.1 and isaaclab 3.0.0"
        )


@functools.cache
def check_rsl_rl() -> None:
    """RSL-RL names :class:`~go2_locomotion.training.runner.Go2OnPolicyRunner` builds on:

    - ``OnPolicyRunner._configure_multi_gpu()`` (overridden for CPU ranks), called from ``__init__``;
    - ``OnPolicyRunner.learn`` calling ``self.logger.log(it=, collect_time=, learn_time=, ...)`` by keyword once per
      iteration (the iteration hook);
    - ``Logger(log_dir, cfg, env_cfg, num_envs, is_distributed, gpu_world_size, gpu_global_rank, device)`` and its
      ``disable_logs``, ``writer`` and ``init_logging_writer`` (rank-0 writing, TensorBoard resume);
    - ``OnPolicyRunner.gpu_global_rank`` / ``gpu_world_size`` / ``is_distributed``.
    """
    from rsl_rl.runners import OnPolicyRunner
    from rsl_rl.utils.logger import Logger

    dist = "rsl-rl-lib"
    _require(
        callable(getattr(OnPolicyRunner, "_configure_multi_gpu", None)), "OnPolicyRunner._configure_multi_gpu", dist
    )
    learn_source = inspect.getsource(OnPolicyRunner.learn)
    for keyword in ("self.logger.log(", "it=it", "collect_time=collect_time", "learn_time=learn_time"):
        _require(keyword in learn_source, f"OnPolicyRunner.learn's call {keyword!r}", dist)
    init_source = inspect.getsource(OnPolicyRunner._configure_multi_gpu)
    for name in ("gpu_global_rank", "gpu_world_size", "is_distributed"):
        _require(f"self.{name}" in init_source, f"OnPolicyRunner.{name}", dist)
    parameters = inspect.signature(Logger.__init__).parameters
    for name in ("log_dir", "cfg", "env_cfg", "num_envs", "is_distributed", "gpu_world_size", "gpu_global_rank"):
        _require(name in parameters, f"Logger.__init__ parameter {name!r}", dist)
    log_parameters = inspect.signature(Logger.log).parameters
    for name in ("it", "collect_time", "learn_time"):
        _require(name in log_parameters, f"Logger.log parameter {name!r}", dist)
    logger_source = inspect.getsource(Logger)
    for name in ("self.disable_logs", "self.writer", "def init_logging_writer"):
        _require(name in logger_source, f"Logger {name.removeprefix('self.').removeprefix('def ')}", dist)
