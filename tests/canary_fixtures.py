"""Canaries of upstream defects the package works around: a test that asserts the defect is gone, marked to fail."""

import pytest


def upstream_canary(defect: str, workaround: str) -> pytest.MarkDecorator:
    """Marks a canary: a strict xfail that must fail on an ``AssertionError`` while ``defect`` (what the pinned
    upstream does) is there, so that an XPASS fails the run and says to remove ``workaround`` (the package's
    repair)."""
    return pytest.mark.xfail(
        strict=True,
        raises=AssertionError,
        reason=f"{defect}; an XPASS means upstream fixed it: remove {workaround}",
    )
