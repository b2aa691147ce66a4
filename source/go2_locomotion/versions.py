"""Installed package versions, as recorded in run summaries, deploy manifests, benchmark and evaluation reports."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def package_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or ``None`` when it is not installed."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def package_versions(*names: str) -> dict[str, str | None]:
    """``{name: version or None}`` for each distribution name."""
    return {name: package_version(name) for name in names}


UPSTREAM_PINS: dict[str, str] = {
    "isaaclab": "3.0.0",
    "rsl-rl-lib": "5.5.1",
    "ovphysx": "0.6.4.72118723",
    "newton": "1.6.1",
}
"""The upstream releases :mod:`go2_locomotion.compat` was written against (its workarounds and the private names
it reaches): the one place these versions are written. On another installed release the package still runs, with
one warning per workaround and per library whose private names it reaches (:func:`go2_locomotion.compat.
written_for`); a private name that is gone stops it."""
