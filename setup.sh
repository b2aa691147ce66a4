#!/usr/bin/env bash
# Set up this project's environment: a Python 3.12 virtual environment (default .venv, or $GO2_VENV) holding
# isaaclab==3.0.0 (with RSL-RL, torch, Newton, MuJoCo-Warp, and OvPhysX for PhysX without Isaac Sim) and this
# package, editable, with its test extras. The first run downloads ~7 GB and takes ~7 min; re-running reuses what
# is installed.
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

# One resolver run for everything, so the pins agree: isaaclab with its `ovphysx` extra (OvPhysX, the PhysX
# runtime Isaac Lab uses without Isaac Sim; `physics=physx` on a CPU machine) and this package with its test
# extras and the USD converter (to check and rebuild the shipped Go2 asset). OvPhysX 0.6.4 pins packaging<24, so
# pip picks a pytest that accepts it. `isaaclab[ov]` is not used: its RTX renderer (ovrtx) is a stub on PyPI that
# downloads from elsewhere, and physics does not need it.
echo "setup.sh: installing isaaclab[ovphysx]==$ISAACLAB_VERSION and go2_locomotion[test,usd-build] (first time: ~7 min, ~7 GB)"
"$VENV/bin/python" -m pip install --quiet "isaaclab[ovphysx]==$ISAACLAB_VERSION" -e ".[test,usd-build]"
echo "setup.sh: done. Run the tests with: $VENV/bin/python -m pytest"
