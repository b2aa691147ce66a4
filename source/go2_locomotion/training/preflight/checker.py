"""The checker the preflight's checks write into: values by dotted path (``env.…`` or ``agent.…``), one message per
problem naming the field, the value and the accepted domain.

Whole-number floats (``50.0``) and numpy integers are accepted where an integer is required and written back as
``int``; a ``bool`` is never taken for a number.
"""

from __future__ import annotations

import math
import numbers

from ...dotted import MissingField, assign, lookup

MISSING_VALUE = object()
"""What :meth:`Checker.value` returns for a path that is not in the config."""


def get_field(root, path: str):
    """The value at ``path`` below ``root``, or :data:`MISSING_VALUE`."""
    try:
        return lookup(root, path)
    except MissingField:
        return MISSING_VALUE


def is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def as_float(value) -> float | None:
    """The value as a 64-bit float, or None when it is no number or too large for one."""
    if not is_number(value):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


class Checker:
    """The merged configs and the problems found in them so far."""

    def __init__(self, env_cfg, agent_cfg):
        self.roots = {"env": env_cfg, "agent": agent_cfg}
        self.problems: list[str] = []

    def value(self, path: str):
        section, rest = path.split(".", 1)
        return get_field(self.roots[section], rest)

    def fail(self, path: str, domain: str, value) -> None:
        shown = "missing" if value is MISSING_VALUE else repr(value)
        self.problems.append(f"{path} must be {domain}, got {shown}")

    def positive_int(self, path: str) -> int | None:
        value = self.value(path)
        number = as_float(value)
        if number is None or not math.isfinite(number) or number != int(number) or number < 1:
            self.fail(path, "a positive integer", value)
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            section, rest = path.split(".", 1)
            assign(self.roots[section], rest, int(number))  # normalise 50.0 / numpy.int64(50) to 50
        return int(number)

    def real(self, path: str, domain: str, accept) -> float | None:
        """A real number for which ``accept(x)`` holds; ``domain`` describes it in the message."""
        value = self.value(path)
        number = as_float(value)
        if number is None or math.isnan(number) or not accept(number):
            self.fail(path, domain, value)
            return None
        return number

    def one_of(self, path: str, accepted: tuple) -> None:
        """A value among ``accepted``."""
        value = self.value(path)
        if not isinstance(value, str) or value not in accepted:
            self.fail(path, f"one of {list(accepted)}", value)


def check_device(device) -> str | None:
    """None when ``device`` is ``cpu``, ``cuda`` or an existing ``cuda:N``; else what is wrong with it."""
    import torch  # heavy; only the device count needs it

    if not isinstance(device, str):
        return f"must be 'cpu', 'cuda' or 'cuda:N', got {device!r}"
    if device == "cpu":
        return None
    if device == "cuda" or (device.startswith("cuda:") and device[5:].isdigit()):
        count = torch.cuda.device_count()
        index = int(device[5:]) if ":" in device else 0
        if index >= count:
            visible = f"cuda:0 to cuda:{count - 1}" if count else "none"
            return f"must be a GPU of this machine (visible: {visible}), got {device!r}"
        return None
    return f"must be 'cpu', 'cuda' or 'cuda:N', got {device!r}"
