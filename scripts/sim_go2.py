"""A simulated Unitree Go2 (MuJoCo, real time) that speaks the robot's DDS topics on the loopback interface:
publishes rt/lowstate, obeys rt/lowcmd (the SDK2 PD law, the CRC checked).

    python scripts/sim_go2.py                                   # then: scripts/deploy_sdk2.py --network lo
    python scripts/sim_go2.py --video walk.gif --duration 20    # off-screen GIF (MUJOCO_GL=egl or osmesa)
    python scripts/sim_go2.py --remote "2:start 6:start 8:ly=0.6 14:ly=0"   # a scripted remote

Run with --help for every flag.
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.offscreen import choose_mujoco_gl

choose_mujoco_gl()  # before MuJoCo is imported: --video renders off-screen (EGL with a GPU, else OSMesa)

from go2_locomotion.sdk2.cli import sim_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(sim_main(sys.argv[1:]))
