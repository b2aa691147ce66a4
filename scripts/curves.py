"""Write curves.csv and curves.png (reward, episode length, termination causes, tracking error, reward terms)
of a training run from its TensorBoard events.

    python scripts/curves.py logs/rsl_rl/go2_flat/<run> [--out docs/]
    python scripts/curves.py <run A> <run B> --labels A B --out <folder>   # by transitions: by_samples.png/.md
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.training.curves import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
