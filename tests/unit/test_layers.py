"""Imports go one way, through the layers of docs/design.md ("Layers"), and an import inside a function says why.
Both are read from the source with ``ast`` (nothing is imported or run), function-local imports included."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "source" / "go2_locomotion"

UNITS = {
    "go2_locomotion": "base",
    "go2_locomotion.versions": "base",
    "go2_locomotion.catalog": "base",
    "go2_locomotion.errors": "base",
    "go2_locomotion.dotted": "base",
    "go2_locomotion.plotting": "base",
    "go2_locomotion.offscreen": "base",
    "go2_locomotion.envs": "base",
    "go2_locomotion.pretrained": "base",
    "go2_locomotion.run_params": "base",
    "go2_locomotion.compat": "compat",
    "go2_locomotion.assets": "assets",
    "go2_locomotion.tasks": "tasks",
    "go2_locomotion.agents": "tasks",
    "go2_locomotion.evaluation": "evaluation",
    "go2_locomotion.fast_sac": "learners",
    "go2_locomotion.robot": "robot",
    "go2_locomotion.sim2sim": "mujoco",
    "go2_locomotion.export": "export",
    "go2_locomotion.sdk2": "sdk2",
    "go2_locomotion.training": "training",
    "go2_locomotion.playback": "playback",
    "go2_locomotion.benchmark": "benchmark",
}
"""Package (or top-level module) -> its layer: one layer a folder."""

LIBRARIES = {
    "base": set(),
    "compat": {"base"},
    "assets": {"compat", "base"},
    "evaluation": {"base"},
    "learners": {"compat", "base"},
    "robot": {"base"},
    "tasks": {"assets", "compat", "base"},
    "mujoco": {"robot", "evaluation", "tasks", "assets", "base"},
    "export": {"robot", "tasks", "compat", "base"},
    "sdk2": {"robot", "mujoco", "evaluation", "assets", "base"},
}
"""Layer -> the layers its modules may import (their own always)."""

WORKFLOWS = {"training": set(), "playback": {"training"}, "benchmark": set()}
"""The workflows import any library layer; playback also the training workflow (its session and command line)."""

ALLOWED = {**LIBRARIES, **{name: set(LIBRARIES) | extra for name, extra in WORKFLOWS.items()}}

LAZY_NOTE = "# Imported inside functions:"
"""A module-level comment that starts so gives the reason for every import inside the module's functions."""

NOT_YET_EXPLAINED: set[str] = set()
"""Modules whose function-local imports do not give their reasons yet."""


def layer(module: str) -> str:
    """The layer of a ``go2_locomotion`` module (``KeyError`` when none)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in UNITS:
            return UNITS[".".join(parts[:end])]
    raise KeyError(module)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """``(line, module)`` of each ``go2_locomotion`` module that ``source`` (the text of ``module``) imports,
    wherever the import stands: at the top, inside a function, under ``TYPE_CHECKING``."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:  # ``from package import module`` imports the module
                found.append((node.lineno, f"{base}.{alias.name}" if _is_module(f"{base}.{alias.name}") else base))
    return [(line, name) for line, name in found if name.split(".")[0] == "go2_locomotion"]


def function_local_imports(source: str) -> list[ast.stmt]:
    """The import statements inside functions."""
    nested = []
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            nested += [n for n in ast.walk(function) if isinstance(n, ast.Import | ast.ImportFrom)]
    return sorted({id(n): n for n in nested}.values(), key=lambda n: n.lineno)


def unexplained_imports(source: str) -> list[int]:
    """Lines of function-local imports without a reason: a comment at the end of the import or of one before it in
    the same run of imports, on the line above the run, or a module-level note (:data:`LAZY_NOTE`)."""
    lines = source.splitlines()
    if any(line.startswith(LAZY_NOTE) for line in lines):
        return []
    unexplained = []
    for node in function_local_imports(source):
        above, explained = node.end_lineno - 1, False
        while above >= 0 and not explained:
            line = lines[above].strip()
            if line.startswith(("import ", "from ")) or not line:
                explained = "#" in line
                above -= 1
            else:
                explained = line.startswith("#")
                break
        if not explained:
            unexplained.append(node.lineno)
    return unexplained


MODULES = sorted(PACKAGE.rglob("*.py"))


def _imports(path: Path) -> list[tuple[int, str]]:
    return imported_modules(path.read_text(), module_name(path), path.name == "__init__.py")


def test_every_module_has_a_layer():
    missing = []
    for path in MODULES:
        for name in (module_name(path), *(m for _, m in _imports(path))):
            try:
                layer(name)
            except KeyError:
                missing.append(name)
    assert not missing, f"modules without a layer (add them to UNITS and docs/design.md): {sorted(set(missing))}"


def test_no_folder_holds_two_layers():
    """A layer is a package (or a module at the top), never a module inside another layer's package."""
    nested = [name for name in UNITS if name.count(".") > 1]
    assert not nested, f"layers inside other layers' packages: {nested}"
    for name in UNITS:
        if name != "go2_locomotion":
            path = PACKAGE.parent.joinpath(*name.split("."))
            assert (path / "__init__.py").is_file() or path.with_suffix(".py").is_file(), name


def test_imports_follow_the_layers():
    wrong = []
    for path in MODULES:
        importer = layer(module_name(path))
        for line, module in _imports(path):
            target = layer(module)
            if target != importer and target not in ALLOWED[importer]:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {importer} -> {target} ({module})")
    assert not wrong, "imports against the layers of docs/design.md:\n" + "\n".join(wrong)


def test_the_layers_are_the_documented_ones():
    """docs/design.md's table names every layer this test knows."""
    design = (PACKAGE.parents[1] / "docs" / "design.md").read_text()
    section = design[design.index("## Layers") :]
    section = section[: section.index("\n## ", 1)]
    documented = set(re.findall(r"^\| `([a-z0-9]+)` \|", section, flags=re.MULTILINE))
    assert documented == set(ALLOWED), documented ^ set(ALLOWED)


def test_function_local_imports_say_why():
    unexplained = []
    for path in MODULES:
        if path.relative_to(PACKAGE).as_posix() in NOT_YET_EXPLAINED:
            continue
        source = path.read_text()
        unexplained += [f"{path.relative_to(PACKAGE.parent)}:{line}" for line in unexplained_imports(source)]
    assert not unexplained, (
        "imports inside functions without a reason (a comment, or a module note starting "
        f"{LAZY_NOTE!r}):\n" + "\n".join(unexplained)
    )


@pytest.mark.parametrize(
    ("source", "module", "expected"),
    [
        ("from ..robot import bundle", "go2_locomotion.training.x", ["go2_locomotion.robot.bundle"]),
        ("from ..robot.bundle import load_bundle", "go2_locomotion.training.x", ["go2_locomotion.robot.bundle"]),
        ("def f():\n    import go2_locomotion.training.cli", "go2_locomotion.x", ["go2_locomotion.training.cli"]),
        ("from . import report as reports", "go2_locomotion.evaluation.x", ["go2_locomotion.evaluation.report"]),
        ("from ... import pretrained", "go2_locomotion.sdk2.interop.x", ["go2_locomotion.pretrained"]),
        ("if TYPE_CHECKING:\n    from ..tasks import mdp", "go2_locomotion.robot.x", ["go2_locomotion.tasks.mdp"]),
        ("import numpy\nfrom isaaclab.utils import configclass", "go2_locomotion.x", []),
    ],
)
def test_imports_are_resolved_wherever_they_stand(source, module, expected):
    assert [name for _, name in imported_modules(source, module)] == expected


def test_an_import_inside_a_function_needs_a_reason():
    bare = "def f():\n    import torch\n"
    assert unexplained_imports(bare) == [2]
    assert unexplained_imports("def f():\n    import torch  # heavy\n") == []
    assert unexplained_imports("def f():\n    # heavy\n    import torch\n\n    import tensordict\n") == []
    assert unexplained_imports("def f():\n    import torch  # heavy\n    import tensordict\n") == []
    assert unexplained_imports("def f():\n    x = 1  # a comment, but no reason\n    import torch\n") == [3]
    assert unexplained_imports(f"{LAZY_NOTE} torch (heavy).\n\n" + bare) == []


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The modules that import each other, directly or round a loop (strongly connected components of two or more)."""
    order, low, stack, cycles = {}, {}, [], []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            component = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return cycles


def test_import_cycles_are_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_modules_import_each_other():
    """Not even under ``TYPE_CHECKING``: a type two modules share lives in a third both import (robot/state.py)."""
    graph = {module_name(path): {m for _, m in _imports(path)} - {module_name(path)} for path in MODULES}
    assert import_cycles(graph) == []
