"""Export a Go2 checkpoint to a deploy bundle: policy.onnx, policy.pt and deploy.yaml.

    python scripts/export.py --task Go2-Flat --checkpoint latest --device cpu --headless
    python scripts/export.py --task Go2-Rough --checkpoint logs/rsl_rl/go2_rough/<run>/model_1499.pt --output bundle/

Run with --help for every flag.
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.training.export import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
