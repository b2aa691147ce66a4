"""Train a Go2 locomotion policy with RSL-RL PPO.

    python scripts/train.py --task Go2-Rough --headless                     # this project's environment
    isaaclab.sh -p scripts/train.py --task Go2-Rough --headless             # inside an Isaac Lab install
    python scripts/train.py --task Go2-Flat --resume                        # continue the newest run

Run with --help for every flag; Hydra overrides (env.…=value, agent.…=value) and physics=… follow the flags.
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.training.train import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
