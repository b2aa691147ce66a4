"""Play a Go2 checkpoint and export it (exported/policy.pt and exported/policy.onnx next to the checkpoint).

    python scripts/play.py --task Go2-Flat --checkpoint latest --num_steps 500 --headless
    python scripts/play.py --task Go2-Flat --checkpoint pretrained --viz viser --real-time   # browser: watch, steer
    python scripts/play.py --task Go2-Flat --checkpoint pretrained --headless --record walk.viser --num_steps 500
    isaaclab.sh -p scripts/play.py --task Go2-Rough --viz kit                # in the Isaac Sim GUI

Run with --help for every flag.
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.playback.play import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
