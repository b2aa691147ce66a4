"""One matplotlib set-up for every figure the package writes (training curves, evaluation and sim2sim reports,
benchmark plots): the file-only ``Agg`` backend, chosen before ``pyplot`` is imported, so no display is needed and
matplotlib is imported only by the commands that draw."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

# Imported inside functions: matplotlib, only by the commands that draw, with its backend chosen first.


def pyplot():
    """``matplotlib.pyplot`` on the ``Agg`` backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@contextlib.contextmanager
def figure(path: Path | str, *, dpi: int, **subplots) -> Iterator[tuple]:
    """``(fig, axes)`` of ``plt.subplots(**subplots)``; when the block ends, laid out tightly and written to
    ``path`` at ``dpi``. The figure is closed either way."""
    plt = pyplot()
    fig, axes = plt.subplots(**subplots)
    try:
        yield fig, axes
        fig.tight_layout()
        fig.savefig(path, dpi=dpi)
    finally:
        plt.close(fig)
