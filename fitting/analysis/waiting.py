"""``perfeq variability``: the predicted time over P with the wait for the slowest rank (issue 22, item 6).

For each P: the deterministic prediction (perfeq predict without its synchronisation term), the
time under *static* scheduling (each rank keeps its share of the work, and every synchronising call
waits for the slowest rank: perfeq predict's synchronisation term) and under *dynamic* scheduling
(each rank's compute burst cut into ``pieces`` tasks that go to whichever rank is free, section
4.2.2 of Fleischmann et al.), and the share of each lost to waiting.  Collect, transform, print:
:func:`variability_rows` computes, :func:`format_rows` and :func:`plot_rows` show.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from perfeq.errors import UsageError
from perfeq.fitting.analysis.figures import new_figure, save_figure
from perfeq.fitting.regression.predict import compute_seconds, predict_model
from perfeq.fitting.regression.synchronisation import (
    ASSUMPTIONS,
    NOISE_ASSUMPTIONS,
    Noise,
    dynamic_wait,
    scaled_sites,
    synchronisation_term,
)

FORMAT, VERSION = "perfeq-variability", 1
DEFAULT_PIECES = 8


@dataclass(frozen=True)
class Row:
    """One P: seconds of the deterministic prediction and under each schedule, and the waits."""

    procs: int
    deterministic: float
    static: float
    static_wait: float
    static_interval: tuple[float, float]
    dynamic: float
    dynamic_wait: float

    @property
    def static_share(self) -> float:
        return self.static_wait / self.static if self.static > 0 else 0.0

    @property
    def dynamic_share(self) -> float:
        return self.dynamic_wait / self.dynamic if self.dynamic > 0 else 0.0


def parse_over(text: str) -> list[int]:
    """``P=1,2,...,1024`` (``...`` continues the ratio of the first two) or ``P=1,2,4,8``."""
    name, sep, values = text.partition("=")
    if name.strip() != "P" or not sep:
        raise UsageError(f"--over {text}: expected P=1,2,...,1024 or P=1,2,4")
    parts = [part.strip() for part in values.split(",")]
    try:
        if "..." in parts:
            if len(parts) != 4 or parts[2] != "...":
                raise ValueError
            first, second, last = int(parts[0]), int(parts[1]), int(parts[3])
            if first < 1 or second <= first or second % first or last < second:
                raise ValueError
            found, value = [], first
            while value <= last:
                found.append(value)
                value *= second // first
            return found
        found = [int(part) for part in parts]
    except ValueError:
        raise UsageError(f"--over {text}: expected whole numbers of processes, e.g. P=1,2,...,1024 "
                         "(doubling) or P=1,2,4,8") from None
    if any(p < 1 for p in found):
        raise UsageError(f"--over {text}: the number of processes must be at least 1")
    return sorted(set(found))


def variability_rows(model, profile, values: Mapping[str, float], procs: Sequence[int], threads: int, hardware,
                     *, pieces: int = DEFAULT_PIECES, level: float = 0.95, noise: Noise | None = None
                     ) -> tuple[list[Row], list[str]]:
    """One :class:`Row` per P and the notes (assumptions, sites left out, warnings) to print once; the
    bursts' spread split by the probe's ``noise`` when given."""
    if not model.sync:
        raise UsageError(f"{model.program}: the model has no synchronising MPI call sites (or was written by an "
                         "older perfeq: rebuild it with perfeq model from traces of this perfeq)")
    rows, notes = [], list(ASSUMPTIONS if noise is None else NOISE_ASSUMPTIONS)
    for p in procs:
        prediction, _, _ = predict_model(model, profile, values, p, threads, hardware, level=level,
                                         synchronisation=False)
        compute = max(compute_seconds(prediction), 0.0)
        term = synchronisation_term(model, values, p, threads, compute, level=level, noise=noise)
        sites, skipped, _ = scaled_sites(model, values, p, threads, compute, noise)
        dynamic = sum(site.calls * dynamic_wait(site, p, pieces) for site in sites)
        for note in (*skipped, *(term.warnings if term else ())):
            if note not in notes:
                notes.append(note)
        wait = term.seconds if term else 0.0
        interval = term.interval if term else (0.0, 0.0)
        rows.append(Row(p, prediction.time_s, prediction.time_s + wait, wait,
                        (prediction.time_s + interval[0], prediction.time_s + interval[1]),
                        prediction.time_s + dynamic, dynamic))
    return rows, notes


def to_json(model_path: str, values: Mapping[str, float], threads: int, pieces: int, rows: list[Row],
            notes: list[str]) -> dict:
    return {"format": FORMAT, "version": VERSION, "model": model_path, "values": dict(values), "T": threads,
            "pieces": pieces, "notes": notes,
            "rows": [{**asdict(row), "static_share": row.static_share, "dynamic_share": row.dynamic_share}
                     for row in rows]}


def format_rows(rows: list[Row], notes: list[str], pieces: int) -> str:
    lines = [f"{'P':>6} {'deterministic s':>16} {'static s':>12} {'waiting':>8} {'dynamic s':>12} {'waiting':>8}"]
    for row in rows:
        lines.append(f"{row.procs:>6} {row.deterministic:>16.4g} {row.static:>12.4g} {100 * row.static_share:>7.1f}% "
                     f"{row.dynamic:>12.4g} {100 * row.dynamic_share:>7.1f}%")
    lines.append(f"static: every synchronising call waits for the slowest rank (perfeq predict's sync term); "
                 f"dynamic: each rank's burst cut into {pieces} tasks handed to whichever rank is free")
    lines.extend(f"assumes / note: {note}" for note in notes)
    return "\n".join(lines)


def plot_rows(rows: list[Row], program: str, path) -> None:
    figure = new_figure(7.0, 6.0)
    top, bottom = figure.subplots(2, 1, sharex=True)
    procs = [row.procs for row in rows]
    top.plot(procs, [row.deterministic for row in rows], "k:", label="deterministic (mean times)")
    top.plot(procs, [row.static for row in rows], "o-", label="static: wait for the slowest rank")
    top.fill_between(procs, [row.static_interval[0] for row in rows], [row.static_interval[1] for row in rows],
                     alpha=0.2, label="static: interval of the sync term")
    top.plot(procs, [row.dynamic for row in rows], "s-", label="dynamic scheduling of the bursts")
    top.set_ylabel("expected time (s)")
    top.set_title(f"{program}: time with the wait at synchronising calls")
    top.legend(fontsize="small")
    bottom.plot(procs, [100 * row.static_share for row in rows], "o-", label="static")
    bottom.plot(procs, [100 * row.dynamic_share for row in rows], "s-", label="dynamic")
    bottom.set_ylabel("share lost to waiting (%)")
    bottom.set_xlabel("P (processes)")
    bottom.legend(fontsize="small")
    for axes in (top, bottom):
        if len(procs) > 1 and procs[-1] / procs[0] > 8:
            axes.set_xscale("log", base=2)
        axes.grid(True, alpha=0.3)
    if not all(math.isfinite(row.static) for row in rows):
        raise UsageError("the predicted times are not finite: check the model and the machine profile")
    save_figure(figure, path)
