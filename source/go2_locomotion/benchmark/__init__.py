"""Throughput comparison of the Go2 tasks with Isaac Lab's own Go2 tasks (``scripts/benchmark.py``, :mod:`.cli`)."""
