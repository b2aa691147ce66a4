"""Imported first by every script: a Python without this package gets one line saying which environment to use
(exit code 2) instead of a ``ModuleNotFoundError`` traceback from the first import."""

import importlib.util
import sys

if importlib.util.find_spec("go2_locomotion") is None:
    print(
        f"error: this Python ({sys.executable}, {sys.version.split()[0]}) does not have go2_locomotion installed; "
        "use the project's environment: ./setup.sh once, then `source .venv/bin/activate` (or run .venv/bin/python), "
        "or with Isaac Lab: isaaclab.sh -p -m pip install -e .",
        file=sys.stderr,
    )
    sys.exit(2)
