"""Write curves.csv and curves.png (reward, episode length, termination causes, tracking error, reward terms)
of a training run from its TensorBoard events.

    python scripts/curves.py logs/rsl_rl/go2_flat/<run> [--out docs/]
"""

import argparse
import sys

from go2_locomotion.errors import exit_on_usage_error
from go2_locomotion.training.curves import export_curves

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", help="A run folder, logs/rsl_rl/<experiment>/<run>.")
    parser.add_argument("--out", default=None, help="Folder for curves.csv and curves.png (default: the run folder).")
    args = parser.parse_args()
    sys.exit(exit_on_usage_error(lambda: print(*export_curves(args.run_dir, args.out), sep="\n") or 0))
