"""Workaround: Isaac Lab 3.0.0's viser viewer stops as soon as a browser connects (with newton 1.6.1).

Upstream defect (isaaclab 3.0.0, ``isaaclab_visualizers/viser/viser_visualizer.py``): ``NewtonViewerViser.
_log_plane_instances`` calls ``self._to_numpy``, a method newton's ``ViewerViser`` had in earlier releases; newton
1.6.1 moved it to a module function (``newton._src.viewer.utils.to_numpy``). The viewer draws only while a browser
is connected, so the first frame drawn for a browser raises ``AttributeError: ... no attribute '_to_numpy'``; Isaac
Lab logs ``Error stepping visualizer 'ViserVisualizer'``, drops the viewer, and playback ends early.

:func:`repair` gives one viewer instance the missing method (newton's own module function, reached through
:func:`.private_api.newton_to_numpy`); the class is not modified, and a viewer whose class has the method is left
alone. The package's own visualizer (:class:`go2_locomotion.playback.viser_visualizer.Go2ViserVisualizer`) repairs
the viewer it starts.

:func:`defect_present` probes the draw without a browser or a simulator; the canary :data:`UPSTREAM_TEST` asserts
the fixed behaviour as a strict expected failure: when it XPASSes, upstream has fixed the defect and this module
can go.
"""

from __future__ import annotations

from . import private_api, written_for

UPSTREAM_TEST = "tests/unit/test_playback.py::test_upstream_viser_viewer_draws_a_plane_without_to_numpy"


def defect_present() -> bool:
    """Whether drawing a plane with the installed Isaac Lab viser viewer stops at the ``self._to_numpy`` that its
    newton base no longer has."""
    # Isaac Lab's visualizers and viser: heavy and optional, needed only when this is asked
    from isaaclab_visualizers.viser.viser_visualizer import NewtonViewerViser

    return private_api.viser_plane_drawing_misses_to_numpy(NewtonViewerViser)


def repair(viewer) -> bool:
    """Give ``viewer`` the ``_to_numpy`` its Isaac Lab code calls, when its class lacks it; returns whether it did."""
    if private_api.has_to_numpy(type(viewer)):
        return False
    written_for("isaaclab", "compat/viser_viewer.py", UPSTREAM_TEST)
    private_api.give_to_numpy(viewer, private_api.newton_to_numpy())
    return True
