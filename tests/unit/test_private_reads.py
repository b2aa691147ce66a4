"""Other objects' private attributes and other libraries' private modules are reached in one place only:
``compat/private_api.py``, the adapter that checks them against the installed versions. Everywhere else in source/,
scripts/ and tests/ a read of ``obj._name`` (or ``getattr(obj, "_name")``, ``monkeypatch.setattr(obj, "_name",
...)``, ``from module import _name``) or an import from a private module path (``newton._src.viewer``,
``pkg._private``) fails this test, which lists them. A class's own ``self._name`` / ``cls._name`` /
``super()._name``, dunder names and this repository's own modules (``scripts/_environment.py``) are fine.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]
TREES = ("source", "scripts", "tests")
ADAPTER = ROOT / "source" / "go2_locomotion" / "compat" / "private_api.py"
BY_NAME = {"getattr", "hasattr", "setattr", "delattr"}
"""Builtins (and ``monkeypatch`` methods of the same names) that take an attribute name as a string."""
DOCUMENTED = {"os._exit"}
"""Underscored names that their library documents as public API."""
OWN_MODULES = {"go2_locomotion"} | {path.stem for tree in ("scripts", "tests") for path in (ROOT / tree).glob("*.py")}
"""Top-level modules of this repository (the scripts' ``_environment``, the tests' helpers)."""


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own(owner: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: the class's own attributes."""
    if isinstance(owner, ast.Name):
        return owner.id in ("self", "cls")
    return isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super"


def _by_name(node: ast.Call) -> bool:
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name not in BY_NAME or len(node.args) < 2 or _own(node.args[0]):
        return False
    attribute = node.args[1]
    return isinstance(attribute, ast.Constant) and isinstance(attribute.value, str) and _private(attribute.value)


def _private_module(name: str | None) -> bool:
    """An absolute module path of another library with a private part (``newton._src.viewer``)."""
    parts = (name or "").split(".")
    return parts[0] not in OWN_MODULES and any(_private(part) for part in parts)


def private_reads(source: str) -> list[tuple[int, str]]:
    """``(line, expression)`` of each read of another object's private attribute, or import from another library's
    private module, in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        attribute = (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and not _own(node.value)
            and ast.unparse(node) not in DOCUMENTED
        )
        if attribute or (isinstance(node, ast.Call) and _by_name(node)):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {alias.name}") for alias in node.names if _private_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = f"{'.' * node.level}{node.module or ''}"
            if not node.level and _private_module(node.module):
                found.append((node.lineno, f"from {module} import {', '.join(a.name for a in node.names)}"))
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {module} import {alias.name}"))
    return sorted(found)


def test_the_detector_sees_private_reads_and_passes_own_ones():
    source = """
import mod, _environment
import newton._src.viewer
from newton._src.viewer.utils import to_numpy
from mod import _hidden, visible
class A(Base):
    def f(self, other, monkeypatch):
        self._x = other._y + cls._z + super()._w() + other.__dict__ + self.__class__.__name__
        getattr(other, "_v", None), hasattr(self, "_u"), getattr(other, "public")
        monkeypatch.setattr(mod, "_t", 1)
        return mod._s(other.thing._r)
"""
    assert [expression for _, expression in private_reads(source)] == [
        "import newton._src.viewer",
        "from newton._src.viewer.utils import to_numpy",
        "from mod import _hidden",
        "other._y",
        "getattr(other, '_v', None)",
        "monkeypatch.setattr(mod, '_t', 1)",
        "mod._s",
        "other.thing._r",
    ]


def test_private_attributes_are_read_only_through_the_adapter():
    offenders = []
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            if path == ADAPTER or ".venv" in path.parts or "__pycache__" in path.parts:
                continue
            for line, expression in private_reads(path.read_text()):
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {expression}")
    assert not offenders, (
        "private attributes or modules of other libraries reached outside compat/private_api.py (add an accessor "
        "there):\n" + "\n".join(offenders)
    )
