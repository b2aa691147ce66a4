"""Which OpenGL platform MuJoCo renders off-screen with (``MUJOCO_GL``), chosen before MuJoCo is imported (it
reads the variable once, at import).

A user's ``MUJOCO_GL`` always wins; with a display, MuJoCo's default (GLFW) is kept. Without one: ``egl`` when an
NVIDIA device is present (the GPU driver's EGL), else ``osmesa`` when Mesa's software renderer is installed
(Debian: ``apt install libosmesa6``); MuJoCo's EGL does not find a device on a machine without a GPU.
"""

from __future__ import annotations

import ctypes.util
import os
from collections.abc import MutableMapping
from pathlib import Path


def pick(environ: MutableMapping[str, str], *, nvidia: bool, osmesa: bool) -> str | None:
    """The ``MUJOCO_GL`` to use (``None``: leave MuJoCo's default)."""
    if environ.get("MUJOCO_GL"):
        return environ["MUJOCO_GL"]
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    if nvidia:
        return "egl"
    return "osmesa" if osmesa else None


def choose_mujoco_gl(environ: MutableMapping[str, str] = os.environ) -> str | None:
    """Set ``MUJOCO_GL`` for this machine (see the module) unless set; returns the platform in force."""
    choice = pick(
        environ, nvidia=Path("/dev/nvidiactl").exists(), osmesa=ctypes.util.find_library("OSMesa") is not None
    )
    if choice is not None:
        environ.setdefault("MUJOCO_GL", choice)
    return choice
