"""Run a deploy bundle on a Go2 over Unitree SDK2 (DDS), and a simulated Go2 that speaks the same topics.

- :mod:`.figures`: every figure of this path (topics, message constants, the remote's layout, safety bounds);
- :mod:`.messages`: the ``unitree_go`` IDL types, their fast codec and the CRC; :mod:`.dds`: CycloneDDS on one
  interface; :mod:`.remote`: the Go2 remote's bytes and stick mapping;
- :mod:`.estimator`: the trunk velocity from LowState; :mod:`.safety`: modes, faults, clamps; :mod:`.timing`: the
  controller's clock;
- :mod:`.runner`: the deploy controller; :mod:`.sim`: the simulated Go2; :mod:`.cli`: ``scripts/deploy_sdk2.py``
  and ``scripts/sim_go2.py``; :mod:`.bench`: the test bench and the measurement.

Needs CycloneDDS's Python binding 0.10.2 (the ``sdk2`` extra; docs/deploy_sdk2.md).
"""
