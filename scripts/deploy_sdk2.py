"""Run a deploy bundle's policy on a Unitree Go2 over SDK2 (DDS), or on the simulated Go2 of scripts/sim_go2.py.

    python scripts/sim_go2.py                                            # terminal 1: the simulated Go2 on lo
    python scripts/deploy_sdk2.py --bundle pretrained --network lo       # terminal 2: g stands up, g again walks
    python scripts/deploy_sdk2.py --bundle <bundle> --network enp3s0 --robot    # a real Go2 (README first)

Starts in damping; start (key g / remote start) stands up over 3 s, start again hands over to the policy; stop
(space / remote select) zeroes the command, stop again: damping; remote L2+B: damping; Ctrl-C: damping and exit.
Run with --help for every flag.
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.sdk2.cli import deploy_main

if __name__ == "__main__":
    sys.exit(deploy_main(sys.argv[1:]))
