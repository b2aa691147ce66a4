"""Evaluate a Go2 checkpoint on a fixed command grid in Isaac Lab: evaluation.json, evaluation.png, a table.

python scripts/evaluate.py --task Go2-Flat --checkpoint latest --device cpu --headless
python scripts/evaluate.py --task Go2-Flat --run logs/rsl_rl/go2_flat/<run> --every 5 --device cpu --headless
python scripts/evaluate.py --compare <report A> <report B>      # also against sim2sim.py --grid reports
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.training.evaluate import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
