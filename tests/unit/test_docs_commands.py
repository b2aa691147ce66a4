"""Every ``python scripts/<name>.py ...`` command shown in README.md and docs/*.md parses with that script's own
parser, so a page cannot show a flag a script does not have (or no longer has). No simulator starts: only the
argument parsing runs, as the script runs it (Hydra overrides and preset selectors pass through where the script
passes them on)."""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from go2_locomotion.errors import UsageError
from go2_locomotion.training import cli

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SCRIPTS = sorted(p.stem for p in (ROOT / "scripts").glob("*.py") if not p.name.startswith("_"))

LAUNCHER = re.compile(
    r"(?<![\w./-])(?:[\w./-]*/)?(?:python3?|isaaclab(?:\.sh)?\s+-p|torchrun(?:\s+--?[\w-]+(?:=\S+)?)*)"
    r"\s+scripts/(\w+)\.py(?![\w.])"
)
"""``python``, ``python3``, ``.venv/bin/python``, ``isaaclab.sh -p`` or ``torchrun [its options]``, then the script."""

PLACEHOLDER = re.compile(r"<[^<>`\n]*>")
"""``<run>``, ``<run folder>``, ...: a value the reader fills in."""

CONTROL = {";", "&&", "||", "|", "&", ")", "(", ">", "<", ">>"}
"""Shell tokens that end a command (a ``while`` loop, a pipe, a redirection)."""


@dataclass(frozen=True)
class Command:
    where: str  # page:line
    script: str
    argv: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.where}: scripts/{self.script}.py {shlex.join(self.argv)}"


def commands_in(text: str, page: str = "page") -> list[Command]:
    """The script commands in a Markdown text: in fenced code blocks (lines continued with a backslash joined) and
    in inline code (which may wrap onto the next line)."""
    found: list[Command] = []
    outside: list[str] = []
    position = 0
    for block in re.finditer(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M):
        outside.append(text[position : block.start()])
        first = text.count("\n", 0, block.start(1)) + 1
        lines = block.group(1).split("\n")
        index = 0
        while index < len(lines):
            start, line = index, lines[index]
            while line.endswith("\\") and index + 1 < len(lines):
                index += 1
                line = line[:-1] + " " + lines[index]
            found += _commands_in_segment(line, f"{page}:{first + start}")
            index += 1
        position = block.end()
        outside.append("\n" * text.count("\n", block.start(), block.end()))  # keeps line numbers
    outside.append(text[position:])
    prose = "".join(outside)
    for span in re.finditer(r"(?<!`)`([^`]+)`(?!`)", prose):
        line = prose.count("\n", 0, span.start()) + 1
        found += _commands_in_segment(" ".join(span.group(1).split()), f"{page}:{line}")
    return found


def _commands_in_segment(segment: str, where: str) -> list[Command]:
    commands = []
    for match in LAUNCHER.finditer(segment):
        rest = PLACEHOLDER.sub("PLACEHOLDER", segment[match.end() :])
        lexer = shlex.shlex(rest, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        argv = []
        for token in lexer:
            if token in CONTROL:
                break
            argv.append(token)
        commands.append(Command(where, match.group(1), tuple(argv)))
    return commands


def documented_commands() -> list[Command]:
    return [c for page in PAGES for c in commands_in(page.read_text(), str(page.relative_to(ROOT)))]


class _Parser(Exception):
    """Raised in place of parsing, carrying the parser an entry point built."""

    def __init__(self, parser: argparse.ArgumentParser):
        super().__init__()
        self.parser = parser


def entry_point(script: str):
    """The module and function ``scripts/<script>.py`` runs: its ``from go2_locomotion... import <main>``."""
    tree = ast.parse((ROOT / "scripts" / f"{script}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("go2_locomotion"):
            for alias in node.names:
                if alias.name.endswith("main"):
                    module = importlib.import_module(node.module)
                    return module, getattr(module, alias.name)
    raise AssertionError(f"scripts/{script}.py imports no go2_locomotion entry point")


def parse(script: str, argv: list[str]) -> str | None:
    """``None`` if ``argv`` parses as ``scripts/<script>.py`` parses it, else argparse's or the script's message.

    The Isaac Lab workflows (train, play, evaluate, export) parse through :func:`cli.parse_args`, which hands
    non-flag tokens on as Hydra overrides and refuses unknown flags; the other scripts parse with their own
    ``argparse`` parser, from their ``build_parser`` or, when they build it inside their entry point, the parser
    caught as the entry point asks it to parse."""
    module, main = entry_point(script)
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            if getattr(module, "parse_args", None) is cli.parse_args:
                args, overrides = cli.parse_args(module.build_parser(), list(argv))
                if hasattr(module, "resume_mode"):
                    module.resume_mode(args, overrides)
            elif hasattr(module, "build_parser"):
                module.build_parser().parse_args(list(argv))
            else:
                _parser_of(main).parse_args(list(argv))
    except UsageError as error:
        return str(error)
    except SystemExit as exit_:
        return stderr.getvalue().strip().splitlines()[-1] if stderr.getvalue().strip() else f"exit {exit_.code}"
    return None


def _parser_of(main) -> argparse.ArgumentParser:
    """The parser ``main`` builds, caught when it calls ``parse_args`` (nothing after that runs)."""
    original = argparse.ArgumentParser.parse_args

    def catch(self, *args, **kwargs):
        raise _Parser(self)

    argparse.ArgumentParser.parse_args = catch
    try:
        main(["--help"])
    except _Parser as caught:
        return caught.parser
    finally:
        argparse.ArgumentParser.parse_args = original
    raise AssertionError(f"{main.__qualname__} did not parse its arguments")


COMMANDS = documented_commands()


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_the_documented_command_parses(command):
    assert command.script in SCRIPTS, f"{command}: there is no scripts/{command.script}.py"
    problem = parse(command.script, list(command.argv))
    assert problem is None, f"{command}\n  -> {problem}"


def test_every_script_is_shown_in_the_docs():
    shown = {c.script for c in COMMANDS}
    assert set(SCRIPTS) <= shown, f"scripts without a command in README.md or docs/: {sorted(set(SCRIPTS) - shown)}"


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_flag_the_script_lacks_is_refused(script):
    """The check above would fail on a page that shows a flag the script does not have."""
    command = next(c for c in COMMANDS if c.script == script)
    assert parse(script, list(command.argv)) is None
    problem = parse(script, [*command.argv, "--no_such_flag"])
    assert problem is not None and "--no_such_flag" in problem, problem


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def broken_links(page: Path) -> list[str]:
    """The relative Markdown links and images of ``page`` whose file does not exist (web addresses not checked)."""
    targets = [m.group(1).split("#")[0] for m in LINK.finditer(page.read_text())]
    return [t for t in targets if t and not re.match(r"\w+:", t) and not (page.parent / t).exists()]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken_links(page) == []


def test_a_link_to_a_moved_file_is_seen(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("![gif](media/walk.gif) [guide](training.md) [site](https://example.org/x.md)")
    (tmp_path / "training.md").write_text("")
    assert broken_links(page) == ["media/walk.gif"]


def test_commands_are_found_in_every_form_a_page_writes_them():
    text = "\n".join(
        [
            "Prose with `python scripts/train.py --task Go2-Flat",
            "--headless` wrapped, and `.venv/bin/python scripts/evaluate.py --run <run folder>`.",
            "```bash",
            "python scripts/train.py --task Go2-Rough \\",
            "    --warm_start --resume auto   # a comment --not_a_flag",
            "isaaclab.sh -p scripts/play.py --task Go2-Rough --viz kit",
            "torchrun --standalone --nproc_per_node=2 scripts/train.py --distributed presets=cpu",
            "while python scripts/train.py --resume auto; [ $? -eq 75 ]; do :; done",
            "sbatch scripts/slurm/train_cpu.sbatch --max_iterations 3",
            "```",
            "`scripts/export.py --output` names a flag: not a command.",
        ]
    )
    found = [(c.where, c.script, c.argv) for c in commands_in(text)]
    assert found == [
        ("page:4", "train", ("--task", "Go2-Rough", "--warm_start", "--resume", "auto")),
        ("page:6", "play", ("--task", "Go2-Rough", "--viz", "kit")),
        ("page:7", "train", ("--distributed", "presets=cpu")),
        ("page:8", "train", ("--resume", "auto")),
        ("page:1", "train", ("--task", "Go2-Flat", "--headless")),
        ("page:2", "evaluate", ("--run", "PLACEHOLDER")),
    ]
