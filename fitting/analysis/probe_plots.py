"""Plots of a probe run (``perfeq probe``): the memory curves against the working set, the compute
costs, the ping-pong, and the collectives, as PNG files in one folder.

Part of perfeq stage 4's analysis room: reads a :class:`perfeq.runtime.probes.document.ProbeResults`
and draws with ``figures`` (Agg canvases, atomic writes).  Each line is the median over repetitions,
its band the quartiles.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.ticker import FuncFormatter

from perfeq.fitting.analysis.figures import new_figure, save_figure
from perfeq.runtime.probes.curves import Curve
from perfeq.runtime.probes.document import ProbeResults


def _bytes(value: float, _position=None) -> str:
    for unit, size in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if value >= size:
            return f"{value / size:g}{unit}"
    return f"{value:g}"


_BYTES = FuncFormatter(_bytes)


def _draw(axes, curve: Curve, scale: float, label: str, keep=None) -> None:
    """The median of ``curve`` times ``scale`` as a line, its quartiles as a band."""
    points = [k for k, x in enumerate(curve.x) if keep is None or keep(x)]
    x = [curve.x[k] for k in points]
    median, q1, q3 = (curve.statistic(kind) for kind in ("median", "q1", "q3"))
    lines = axes.plot(x, [median[k] * scale for k in points], marker=".", label=label)
    axes.fill_between(x, [q1[k] * scale for k in points], [q3[k] * scale for k in points],
                      color=lines[0].get_color(), alpha=0.2, linewidth=0)


def _caches(axes, machine: dict) -> None:
    for key, name in (("l1_bytes", "L1"), ("l2_bytes", "LLC")):
        if machine.get(key):
            axes.axvline(machine[key], color="grey", linestyle=":", linewidth=1)
            axes.annotate(name, (machine[key], 1), xycoords=("data", "axes fraction"), va="top", ha="right",
                          fontsize=7, color="grey", rotation=90)


def plot_memory(results: ProbeResults, path: Path) -> Path | None:
    panels = [("read", "read: GB/s per process", 1e-9), ("update", "update (load+store): GB/s per process", 1e-9),
              ("stride", "stride 512 B: GB/s per process", 1e-9), ("chase", "random chase: ns per load", 1e9)]
    if not results.curve("read"):
        return None
    figure = new_figure(10, 7)
    for axes, (name, title, scale) in zip(figure.subplots(2, 2).flat, panels, strict=True):
        for procs in results.procs_of(name):
            _draw(axes, results.curve(name, procs), scale, f"{procs} process{'es' if procs > 1 else ''}")
        axes.set_xscale("log", base=2)
        axes.xaxis.set_major_formatter(_BYTES)
        if name == "chase":
            axes.set_yscale("log")
        axes.set_title(title, fontsize=10)
        axes.set_xlabel("working set per process (bytes)")
        _caches(axes, results.machine)
        axes.legend(fontsize=7)
    figure.suptitle(f"memory probe, {results.machine.get('name', '')}", fontsize=11)
    return save_figure(figure, path)


def plot_compute(results: ProbeResults, path: Path) -> Path | None:
    names = [n for n in ("flops_independent", "flops_chained", "int_ops", "divide", "math", "branch_predictable", "branch_random",
                         "branch_difference") if results.curve(n)]
    if not names:
        return None
    figure = new_figure(7, 3.5)
    axes = figure.subplots()
    curves = [results.curve(n) for n in names]
    medians = [c.median[0] * 1e9 for c in curves]
    low = [m - c.statistic("min")[0] * 1e9 for m, c in zip(medians, curves, strict=True)]
    high = [c.statistic("max")[0] * 1e9 - m for m, c in zip(medians, curves, strict=True)]
    axes.barh(names, medians, xerr=[low, high], color="tab:blue", alpha=0.7)
    axes.invert_yaxis()
    axes.set_xlabel("ns per operation (median; bars: min to max)")
    axes.set_title("compute probe", fontsize=10)
    return save_figure(figure, path)


def plot_pingpong(results: ProbeResults, path: Path) -> Path | None:
    kinds = [k for k in ("intra", "inter") if results.curve(f"pingpong_{k}")]
    if not kinds:
        return None
    figure = new_figure(10, 3.8)
    latency, bandwidth = figure.subplots(1, 2)
    for kind in kinds:
        label = "within a node" if kind == "intra" else "across nodes"
        _draw(latency, results.curve(f"pingpong_{kind}"), 1e6, label, keep=lambda x: x > 0)
        if results.curve(f"pingpong_{kind}_bandwidth"):
            _draw(bandwidth, results.curve(f"pingpong_{kind}_bandwidth"), 1e-9, label)
    for axes, title in ((latency, "ping-pong: us per message (half a round trip)"), (bandwidth, "ping-pong: GB/s")):
        axes.set_xscale("log", base=2)
        axes.xaxis.set_major_formatter(_BYTES)
        axes.set_xlabel("message (bytes)")
        axes.set_title(title, fontsize=10)
        axes.legend(fontsize=7)
    latency.set_yscale("log")
    return save_figure(figure, path)


def plot_collectives(results: ProbeResults, path: Path) -> Path | None:
    if not results.curve("bcast") and not results.curve("barrier"):
        return None
    figure = new_figure(10, 7)
    grid = figure.subplots(2, 2)
    for axes, name in zip(grid.flat, ("bcast", "allreduce", "alltoall"), strict=False):
        for procs in results.procs_of(name):
            _draw(axes, results.curve(name, procs), 1e6, f"P = {procs}")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        axes.xaxis.set_major_formatter(_BYTES)
        axes.set_xlabel("message (bytes)" + (" per pair" if name == "alltoall" else ""))
        axes.set_title(f"{name}: us per call (slowest rank)", fontsize=10)
        axes.legend(fontsize=7)
    axes = grid[1, 1]
    barrier = results.curve("barrier")
    if barrier:
        _draw(axes, barrier, 1e6, "barrier")
        axes.set_xticks(list(barrier.x))
        axes.set_xlabel("processes P")
        axes.set_title("barrier: us per call (slowest rank)", fontsize=10)
    return save_figure(figure, path)


def plot_probes(results: ProbeResults, folder: Path) -> list[Path]:
    """Every plot the run has data for, as ``memory.png``, ``compute.png``, ``pingpong.png`` and
    ``collectives.png`` in ``folder``; returns the files written."""
    plots = ((plot_memory, "memory.png"), (plot_compute, "compute.png"), (plot_pingpong, "pingpong.png"),
             (plot_collectives, "collectives.png"))
    written = [plot(results, folder / name) for plot, name in plots]
    return [path for path in written if path is not None]
