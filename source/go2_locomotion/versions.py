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
