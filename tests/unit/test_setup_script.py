"""./setup.sh installs the system packages the tests and features need (Debian's chromium, Mesa's OSMesa, CycloneDDS
0.10's C library and a C compiler to build its Python binding) before pip, or stops with one line naming them; it
builds the sdk2 extra against that library, or leaves it out and says so; and every script started with a Python
that lacks the package says which environment to use. Run with stub programs on a PATH of their own, so nothing is
installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
TOOLS = ("dirname", "tr", "grep", "cat", "env", "ln", "mkdir", "sed", "tail")
"""Real programs setup.sh needs before its Python step."""


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}\n")
    path.chmod(0o755)


def _bin(tmp_path: Path, uid: int, apt: bool, sudo: bool, have: tuple[str, ...] = ()) -> Path:
    """A PATH folder: the real tools, ``id -u`` answering ``uid``, apt-get and sudo stubs that log their words."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in TOOLS:
        (folder / tool).symlink_to(shutil.which(tool))
    _stub(folder, "id", f"echo {uid}")
    libraries = {"osmesa": "libOSMesa.so.8", "cyclonedds": "libddsc.so"}
    lines = [f"echo '\t{name} (libc6,x86-64) => /x/{name}'" for key, name in libraries.items() if key in have]
    _stub(folder, "ldconfig", "\n".join(lines))
    for program in ("chromium", "cc"):
        if program in have:
            _stub(folder, program, "")
    if apt:
        _stub(folder, "apt-get", f'echo "apt-get $*" >> {tmp_path}/calls')
    if sudo:
        _stub(folder, "sudo", f'echo "sudo $1" >> {tmp_path}/calls; "$@"')
    return folder


def _setup(tmp_path: Path, folder: Path, **env: str) -> subprocess.CompletedProcess:
    env = {"PATH": str(folder), "HOME": str(tmp_path), "GO2_VENV": str(tmp_path / "venv"), "PYTHON": "no-python", **env}
    return subprocess.run(["/bin/bash", str(ROOT / "setup.sh")], env=env, capture_output=True, text=True, timeout=60)


def _venv(tmp_path: Path, headers: bool) -> None:
    """A venv at ``tmp_path/venv`` whose python passes for 3.12, logs its pip calls (with CYCLONEDDS_HOME) and
    answers the check for Python's headers with ``headers``."""
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    log = f'echo "$* CYCLONEDDS_HOME=${{CYCLONEDDS_HOME:-}}" >> {tmp_path}/calls'
    python.write_text(f'#!/bin/bash\ncase "$*" in -m*) {log};; *Python.h*) exit {0 if headers else 1};; esac\n')
    python.chmod(0o755)


def _calls(tmp_path: Path) -> list[str]:
    calls = tmp_path / "calls"
    return calls.read_text().splitlines() if calls.exists() else []


def test_missing_packages_without_apt_or_root_stop_with_one_line_before_pip(tmp_path):
    result = _setup(tmp_path, _bin(tmp_path, uid=1000, apt=True, sudo=False))
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert "missing system packages: chromium libosmesa6 cyclonedds-dev gcc" in line
    assert "apt-get install -y chromium libosmesa6 cyclonedds-dev gcc" in line
    assert _calls(tmp_path) == [] and not (tmp_path / "venv").exists()

    no_apt = tmp_path / "no_apt"
    no_apt.mkdir()
    result = _setup(no_apt, _bin(no_apt, uid=0, apt=False, sudo=False, have=("chromium", "cyclonedds", "cc")))
    assert result.returncode == 2 and "missing system packages: libosmesa6" in result.stderr


@pytest.mark.parametrize(("uid", "sudo", "prefix"), [(0, False, ""), (1000, True, "sudo apt-get\n")])
def test_missing_packages_are_installed_with_apt_as_root_or_through_sudo(tmp_path, uid, sudo, prefix):
    result = _setup(tmp_path, _bin(tmp_path, uid=uid, apt=True, sudo=sudo, have=("osmesa", "cyclonedds", "cc")))
    # the stubs install nothing; set-up then goes on to its Python step, which finds no Python 3.12 here
    assert "installing system packages: chromium" in result.stdout, result.stdout + result.stderr
    apt = [call for call in _calls(tmp_path) if call.startswith("apt-get")]
    assert apt == ["apt-get update -qq", "apt-get install -y -qq chromium"]
    assert ("sudo apt-get" in _calls(tmp_path)) == sudo
    assert "no Python 3.12 found" in result.stderr


def test_nothing_is_installed_when_the_packages_are_there(tmp_path):
    result = _setup(
        tmp_path, _bin(tmp_path, uid=0, apt=True, sudo=False, have=("chromium", "osmesa", "cyclonedds", "cc"))
    )
    assert _calls(tmp_path) == [] and "installing system packages" not in result.stdout


def test_the_sdk2_extra_is_built_against_the_system_cyclonedds_named_by_an_absolute_home(tmp_path):
    venv = os.path.relpath(tmp_path / "venv", ROOT)  # relative, as the default .venv: pip builds elsewhere
    folder = _bin(tmp_path, uid=0, apt=True, sudo=False, have=("chromium", "osmesa", "cyclonedds", "cc"))
    _venv(tmp_path, headers=True)
    result = _setup(tmp_path, folder, GO2_VENV=venv)
    assert result.returncode == 0, result.stdout + result.stderr
    home = tmp_path / "venv" / "cyclonedds-home"
    (install,) = [call for call in _calls(tmp_path) if "isaaclab" in call]
    assert install.split()[-3:] == ["-e", ".[test,usd-build,sdk2]", f"CYCLONEDDS_HOME={ROOT}/{venv}/cyclonedds-home"]
    assert (home / "lib").readlink() == Path("/x") and (home / "include").readlink() == Path("/usr/include")


@pytest.mark.parametrize(("have", "headers"), [(("cc",), True), (("cyclonedds", "cc"), False)], ids=["no-dds", "no-h"])
def test_without_what_the_binding_needs_the_sdk2_extra_is_left_out_and_said(tmp_path, have, headers):
    folder = _bin(tmp_path, uid=0, apt=True, sudo=False, have=("chromium", "osmesa", *have))
    _venv(tmp_path, headers=headers)
    result = _setup(tmp_path, folder, GO2_SYSTEM_PACKAGES="skip")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "setup.sh: leaving out the sdk2 extra" in result.stdout
    (install,) = [call for call in _calls(tmp_path) if "isaaclab" in call]
    assert install.split()[-3:] == ["-e", ".[test,usd-build]", "CYCLONEDDS_HOME="]


SCRIPTS = sorted(p.name for p in (ROOT / "scripts").glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_python_without_the_package_is_told_which_environment_to_use(script, tmp_path):
    # -S: no site-packages, so the package (installed there) is missing, as with the machine's own python3
    result = subprocess.run(
        [sys.executable, "-S", str(ROOT / "scripts" / script), "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "does not have go2_locomotion installed" in line and "source .venv/bin/activate" in line
