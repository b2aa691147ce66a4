"""Run a Go2 deploy bundle in plain MuJoCo (CPU): PD at 200 Hz, policy at 50 Hz, scripted commands.

    python scripts/sim2sim.py --bundle logs/rsl_rl/go2_flat/<run>/exported
    python scripts/sim2sim.py --bundle bundle/ --commands "stand:2:0,0,0 forward:5:0.8,0,0" --video run.gif
    python scripts/sim2sim.py --bundle bundle/ --terrain stairs_up:0.10 --video stairs.gif   # a Go2-Rough terrain cell
    python scripts/sim2sim.py --bundle bundle/ --terrain default   # the terrain grid of evaluate.py --terrain

--video renders off-screen: MUJOCO_GL=egl with a GPU driver, else MUJOCO_GL=osmesa (Debian: apt install libosmesa6),
chosen automatically unless MUJOCO_GL is set.

Writes <bundle>/sim2sim/sim2sim.json and sim2sim.png (a grid: evaluation.json and .png). Run with --help for every
flag.
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.offscreen import choose_mujoco_gl

choose_mujoco_gl()  # before MuJoCo is imported: --video renders off-screen (EGL with a GPU, else OSMesa)

from go2_locomotion.sim2sim import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
