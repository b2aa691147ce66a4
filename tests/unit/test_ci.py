"""CI runs what a new user runs: the README's set-up command, then its test command, and nothing else that
installs or starts anything, so CI cannot pass where the README's two commands fail."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).parents[2]

PLUMBING = ("set", "cd", "trap", "mkdir")
"""Shell built-ins and folder set-up .ci/run may use besides the two commands."""


def _readme_command(heading: str) -> str:
    """The one command in the first code block after the README line that starts with ``heading``."""
    text = (ROOT / "README.md").read_text()
    start = text.index(heading)
    block = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert block is not None, heading
    lines = [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]
    assert len(lines) == 1, f"README: one command expected after {heading!r}, got {lines}"
    return lines[0].strip()


def _runs(script: str) -> list[list[str]]:
    """The commands a shell script runs besides :data:`PLUMBING` (continued lines joined, comments and variable
    assignments dropped), each split into words."""
    lines = script.replace("\\\n", " ").splitlines()
    programs = [_program(shlex.split(line)) for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return [p for p in programs if p and p[0] not in PLUMBING]


def _program(words: list[str]) -> list[str]:
    """The command a line runs, past ``env -u NAME ... NAME=value ...`` and variable assignments."""
    words = list(words)
    if words and words[0] == "env":
        words = words[1:]
        while words and (words[0] == "-u" or words[0].startswith("-") or "=" in words[0]):
            words = words[2:] if words[0] == "-u" else words[1:]
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        words = words[1:]
    return words


def test_ci_runs_the_readme_set_up_then_the_readme_test_command_and_nothing_else():
    set_up = _readme_command("Set up (")
    test = _readme_command("Test (")
    assert (set_up, test) == ("./setup.sh", ".venv/bin/python -m pytest")
    runs = _runs((ROOT / ".ci" / "run").read_text())
    assert runs == [shlex.split(set_up), shlex.split(test)], runs


def test_ci_installs_nothing_itself():
    text = (ROOT / ".ci" / "run").read_text()
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    for word in ("apt", "apt-get", "pip", "install", "npm", "curl", "wget", "playwright"):
        assert not re.search(rf"(?<![\w-]){word}(?![\w-])", code), f".ci/run runs {word}: ./setup.sh must do it"


def test_the_check_sees_an_extra_step():
    """The parse above notices a .ci/run that runs anything between or after the two commands."""
    text = (ROOT / ".ci" / "run").read_text().replace("./setup.sh\n", "./setup.sh\nsudo apt-get install -y x\n")
    assert ["sudo", "apt-get", "install", "-y", "x"] in _runs(text)
    assert ["python", "-c", "pass"] in _runs(text + "FOO=1 python -c pass\n")
