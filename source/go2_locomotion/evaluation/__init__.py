"""Evaluating a policy on a fixed command grid or on terrain cells: the grids, the figures and the reports, numpy
only and the same for every simulator. The simulators' adapters fill them: Isaac Lab's in
:mod:`go2_locomotion.training.evaluate` (``scripts/evaluate.py``), MuJoCo's in
:mod:`go2_locomotion.sim2sim.command_grid` and :mod:`~go2_locomotion.sim2sim.terrain_grid`
(``scripts/sim2sim.py --grid`` / ``--terrain``)."""
