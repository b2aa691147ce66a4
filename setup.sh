#!/usr/bin/env bash
# Set up this project's environment: a Python 3.12 virtual environment (default .venv, or $GO2_VENV) holding
# isaaclab==3.0.0 (with RSL-RL, torch, Newton, MuJoCo-Warp) and this package, editable, with its test extras.
# The first run downloads ~6 GB and takes ~6 min; re-running reuses what is installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

VENV="${GO2_VENV:-.venv}"
ISAACLAB_VERSION="3.0.0"

is_py312() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; }

find_python312() {
    local candidate
    for candidate in "${PYTHON:-}" python3.12 python3; do
        if [ -n "$candidate" ] && command -v "$candidate" >/dev/null && is_py312 "$candidate"; then
            command -v "$candidate"; return
        fi
    done
    # pyenv keeps versions that are installed but not selected
    for candidate in "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/3.12*/bin/python3.12; do
        if [ -x "$candidate" ] && is_py312 "$candidate"; then echo "$candidate"; return; fi
    done
    echo "setup.sh: no Python 3.12 found (tried \$PYTHON, python3.12, python3, pyenv versions); install one or set PYTHON=/path/to/python3.12" >&2
    exit 1
}

if [ -x "$VENV/bin/python" ] && is_py312 "$VENV/bin/python"; then
    echo "setup.sh: reusing $VENV"
else
    PY="$(find_python312)"
    echo "setup.sh: creating $VENV with $PY"
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
fi

installed="$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("isaaclab"))' 2>/dev/null || true)"
if [ "$installed" = "$ISAACLAB_VERSION" ]; then
    echo "setup.sh: isaaclab $installed already installed"
else
    echo "setup.sh: installing isaaclab==$ISAACLAB_VERSION (first time: ~6 min, ~6 GB)"
    "$VENV/bin/python" -m pip install "isaaclab==$ISAACLAB_VERSION"
fi

"$VENV/bin/python" -m pip install --quiet -e ".[test]"
echo "setup.sh: done. Run the tests with: $VENV/bin/python -m pytest"
