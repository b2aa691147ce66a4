"""Write curves.csv and curves.png (reward, episode length, termination causes, tracking error, reward terms)
of a training run from its TensorBoard events.

    python scripts/curves.py logs/rsl_rl/go2_flat/<run> [--out docs/]
    python scripts/curves.py <run A> <run B> --labels A B --out <folder>   # by transitions: by_samples.png/.md
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import argparse
import sys

from go2_locomotion.errors import exit_on_usage_error
from go2_locomotion.training.curves import write_curves

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", nargs="+", help="A run folder, logs/rsl_rl/<experiment>/<run>; several compare.")
    parser.add_argument("--labels", nargs="+", help="One name per run, when comparing runs.")
    parser.add_argument("--out", default=None, help="Output folder (default for one run: the run folder).")
    args = parser.parse_args()
    sys.exit(exit_on_usage_error(lambda: print(*write_curves(args.run_dir, args.labels, args.out), sep="\n") or 0))
