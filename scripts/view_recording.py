"""Open a playback recording (play.py --record FILE.viser) in a browser without the simulator, or export it.

    python scripts/view_recording.py run.viser               # serve it: open the printed URL
    python scripts/view_recording.py run.viser --html run.html   # one self-contained HTML file to share

Run with --help for every flag.
"""

import _environment  # noqa: F401, I001 (first: names the environment to use when the package is missing)
import sys

from go2_locomotion.playback.recording import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
