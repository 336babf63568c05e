"""Figures of the analysis commands: matplotlib's Agg canvas (no pyplot state), written atomically.

``save_figure`` writes PNG, or SVG when the path ends in ``.svg``; ``png_data_uri`` gives the
``data:image/png;base64,...`` form the HTML report embeds.
"""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from perfeq.errors import UsageError
from perfeq.files import write_atomic

FORMATS = {".png": "png", ".svg": "svg"}
DPI = 110


def new_figure(width: float, height: float) -> Figure:
    """A figure on its own Agg canvas, laid out with constrained layout."""
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def check_image_path(path: str | os.PathLike[str], option: str = "-o") -> Path:
    """``path`` when it ends in .png or .svg; UsageError otherwise (checked before any work)."""
    target = Path(path)
    if target.suffix.lower() not in FORMATS:
        raise UsageError(f"{option} {target}: expected a .png or .svg file name")
    return target


def figure_bytes(figure: Figure, kind: str = "png") -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format=kind, dpi=DPI)
    return buffer.getvalue()


def save_figure(figure: Figure, path: str | os.PathLike[str]) -> Path:
    """Write ``figure`` as PNG (SVG for ``.svg``) through a temporary file and ``os.replace``."""
    target = check_image_path(path)
    return write_atomic(target, figure_bytes(figure, FORMATS[target.suffix.lower()]))


def png_data_uri(figure: Figure) -> str:
    """The figure as a ``data:image/png;base64,...`` URI, for a self-contained HTML page."""
    return "data:image/png;base64," + base64.b64encode(figure_bytes(figure, "png")).decode("ascii")
