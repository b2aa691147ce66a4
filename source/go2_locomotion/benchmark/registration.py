"""Entry point of the benchmark comparators (``isaaclab.tasks``): registers ``Go2-Upstream-*-Offline`` only in
processes that :func:`compare.run_isaaclab_benchmark` starts, which set :data:`ENV_VAR`. Everywhere else
(``isaaclab list_envs``, training, playback) nothing is imported and no benchmark-only id appears."""

import os

ENV_VAR = "GO2_LOCOMOTION_BENCHMARK"
"""Set to ``1`` in the environment of a benchmark's ``isaaclab benchmark`` process."""

if os.environ.get(ENV_VAR) == "1":
    from . import upstream_tasks  # noqa: F401  (registers the comparators)
