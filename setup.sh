#!/usr/bin/env bash
# Set up this project's environment: a Python 3.12 virtual environment (default .venv, or $GO2_VENV) holding
# isaaclab==3.0.0 (with RSL-RL, torch, Newton, MuJoCo-Warp, and OvPhysX for PhysX without Isaac Sim) and this
# package, editable, with its test extras. The first run downloads ~7 GB and takes ~7 min; re-running reuses what
# is installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

VENV="${GO2_VENV:-.venv}"
ISAACLAB_VERSION="3.0.0"

# System packages the README's test command and features use (Debian/Ubuntu names): Debian's Chromium (the browser
# tests drive it headless: playback in viser, recordings), Mesa's OSMesa (MuJoCo's off-screen rendering on a
# machine without a GPU: sim2sim --video, the README's animation) and CycloneDDS 0.10's C library with its headers
# (the Go2's DDS version: the Python binding of the same version is built against it with the C compiler, see
# docs/deploy_sdk2.md).
# Installed before pip spends minutes, or refused with the command to run. GO2_SYSTEM_PACKAGES=skip leaves them out
# (those tests then fail).
shared_libraries() { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; }

# grep reads the whole list (no -q): an early exit would cut ldconfig off with SIGPIPE, which pipefail reports
has_library() { shared_libraries | grep "$1" >/dev/null; }

missing_system_packages() {
    command -v chromium >/dev/null || echo chromium
    has_library 'libOSMesa\.so' || echo libosmesa6
    has_library 'libddsc\.so ' || echo cyclonedds-dev
    command -v cc >/dev/null || echo gcc  # builds CycloneDDS's Python binding (a C extension)
}

# CycloneDDS 0.10's Python binding (the sdk2 extra) builds against the C library of $CYCLONEDDS_HOME, where it looks
# for include/, bin/ and lib/libddsc.so; Debian keeps the library in its multiarch folder, so the home is a folder of
# links, named by an absolute path (pip builds the binding in a folder of its own).
cyclonedds_home() {
    local home lib
    case "$VENV" in /*) home="$VENV/cyclonedds-home" ;; *) home="$PWD/$VENV/cyclonedds-home" ;; esac
    lib="$(shared_libraries | grep 'libddsc\.so ' | tail -n 1 | sed 's/.*=> //')"
    mkdir -p "$home"
    ln -sfn /usr/include "$home/include"
    ln -sfn /usr/bin "$home/bin"
    ln -sfn "$(dirname "$lib")" "$home/lib"
    echo "$home"
}

# The binding is a C extension: it needs the C library (or a CYCLONEDDS_HOME of the user's), a compiler and the
# headers of the environment's Python (Ubuntu's own python3.12 keeps them in python3.12-dev)
can_build_sdk2() {
    { [ -n "${CYCLONEDDS_HOME:-}" ] || has_library 'libddsc\.so '; } && command -v cc >/dev/null \
        && "$VENV/bin/python" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(sysconfig.get_path("include") + "/Python.h"))'
}

install_system_packages() {
    local missing
    missing="$(missing_system_packages | tr '\n' ' ')"
    missing="${missing% }"
    [ -z "$missing" ] && return
    [ "${GO2_SYSTEM_PACKAGES:-}" = "skip" ] && { echo "setup.sh: GO2_SYSTEM_PACKAGES=skip: not installing $missing"; return; }
    local as_root=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null && as_root=(sudo) || as_root=(none)
    fi
    if ! command -v apt-get >/dev/null || [ "${as_root[0]:-}" = none ]; then
        echo "setup.sh: missing system packages: $missing (browser tests, off-screen MuJoCo rendering); install them as root (Debian/Ubuntu: apt-get install -y $missing) and re-run ./setup.sh, or set GO2_SYSTEM_PACKAGES=skip" >&2
        exit 2
    fi
    echo "setup.sh: installing system packages: $missing (${as_root[*]:-as root} apt-get)"
    if ! { "${as_root[@]}" apt-get update -qq && "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null; }; then
        echo "setup.sh: could not install $missing with apt-get; install them as root (apt-get install -y $missing) and re-run ./setup.sh" >&2
        exit 2
    fi
}

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

install_system_packages

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
EXTRAS="test,usd-build"
if can_build_sdk2; then
    export CYCLONEDDS_HOME="${CYCLONEDDS_HOME:-$(cyclonedds_home)}"
    EXTRAS="$EXTRAS,sdk2"
else
    echo "setup.sh: leaving out the sdk2 extra (scripts/deploy_sdk2.py, scripts/sim_go2.py; their tests then fail): building CycloneDDS's Python binding needs cyclonedds-dev, gcc and Python's headers (Debian/Ubuntu: apt-get install -y cyclonedds-dev gcc, and python3.12-dev for the system's Python 3.12)"
fi
echo "setup.sh: installing isaaclab[ovphysx]==$ISAACLAB_VERSION and go2_locomotion[$EXTRAS] (first time: ~7 min, ~7 GB)"
"$VENV/bin/python" -m pip install --quiet "isaaclab[ovphysx]==$ISAACLAB_VERSION" -e ".[$EXTRAS]"
echo "setup.sh: done. Enter the environment with: source $VENV/bin/activate   (then: python -m pytest; python scripts/train.py ...)"
