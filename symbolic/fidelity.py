"""The model's self-check: does it reproduce the runs it was built from? (symbolic stage)

Part of perfeq stage 3 (symbolic/).  :func:`self_check` evaluates a model at the parameters, P and T
of every training trace and compares each count key with what the run measured
(perfeq.symbolic.measured), in total over the ranks and rank by rank.  A key off by more than
:data:`TOLERANCE` in total is a warning naming the blocks and loops responsible, largest first; a
key exact in total but off on some rank is noted (a data-dependent conditional modelled with the
ratio over all ranks, the paper's assumption).  :func:`leave_one_out` rebuilds the model without
each trace in turn and predicts the one left out: the extrapolation error to expect.

Collect (measured and modelled numbers), then compare; printing is the caller's.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfeq.symbolic import chi as chimod
from perfeq.symbolic.measured import run_items
from perfeq.symbolic.observe import RunObservation

# the keys compared: operations (and each kind), parallel regions, messages on the critical path
# (startup), bytes and messages sent
CHECK_KEYS = ("ops", *chimod.OP_KINDS, "par", "startup", "bytes", "sent")
TOLERANCE = 0.01  # relative, in total over the ranks of a training run
SLOWEST_KEYS = ("ops", "startup", "bytes")  # what the time of the slowest rank follows
CULPRITS = 3  # blocks named per warning


@dataclass
class KeyCheck:
    """One count key at one training run: measured, modelled, and where they differ."""

    trace: str
    key: str
    measured: float
    modelled: float
    worst_rank: int | None = None  # the rank with the largest relative difference
    worst_rank_error: float = 0.0
    modelled_max: float = 0.0  # the largest of the ranks' counts: the slowest rank's, for ops
    measured_max: float = 0.0
    culprits: list[str] = field(default_factory=list)  # "prog.c:73 loop: model 2400, run 2680"

    @property
    def error(self) -> float:
        return _relative(self.modelled, self.measured)

    @property
    def max_error(self) -> float:
        """The relative difference of the largest rank counts (the model's against the run's)."""
        return _relative(self.modelled_max, self.measured_max)

    @property
    def off(self) -> bool:
        """Off by more than the tolerance in total over the ranks."""
        return abs(self.error) > TOLERANCE

    def describe(self) -> str:
        return f"{self.key} {self.modelled:.6g} vs {self.measured:.6g} measured ({self.error:+.1%})"


@dataclass
class Fidelity:
    """The self-check of a model: every key at every training run, and the leave-one-out errors."""

    checks: list[KeyCheck] = field(default_factory=list)
    held_out: list[dict[str, Any]] = field(default_factory=list)  # trace, key, predicted, measured, error

    def warnings(self) -> list[str]:
        """One line per training run the model does not reproduce: the keys off, and the blocks
        responsible for the first of them (ops before its kinds, messages, bytes), largest first."""
        lines = []
        for trace in dict.fromkeys(c.trace for c in self.checks):
            off = [c for c in self.checks if c.trace == trace and c.off]
            if off:
                blame = "; ".join(off[0].culprits) or "no single block"
                lines.append(f"the model does not reproduce its own run {trace}: "
                             f"{', '.join(c.describe() for c in off)}; largest differences in {off[0].key}: {blame}")
                continue
            slowest = [c for c in self.checks if c.trace == trace and c.key in SLOWEST_KEYS
                       and abs(c.max_error) > TOLERANCE]
            if slowest:
                lines.append(f"the model reproduces its own run {trace} in total but not its largest rank, which the "
                             f"time follows: " + ", ".join(
                                 f"{c.key} {c.modelled_max:.6g} vs {c.measured_max:.6g} measured "
                                 f"({c.max_error:+.1%})" for c in slowest) +
                             " (data-dependent work modelled with its share over all ranks)")
        return lines

    def worst_rank(self) -> float:
        """The relative error of the largest rank's count (the slowest rank's, for ops) farthest from 0."""
        return max((c.max_error for c in self.checks if c.key in SLOWEST_KEYS), key=abs, default=0.0)

    def worst(self) -> float:
        return max((abs(c.error) for c in self.checks), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        return {"tolerance": TOLERANCE, "worst_error": _finite(self.worst()),
                "worst_rank_error": _finite(self.worst_rank()), "warnings": self.warnings(),
                "checks": [{**asdict(c), "error": _finite(c.error), "worst_rank_error": _finite(c.worst_rank_error),
                            "max_error": _finite(c.max_error)}
                           for c in self.checks],
                "held_out": [{**row, "error": _finite(row["error"])} for row in self.held_out]}


def self_check(model, runs: list[RunObservation], traces: list[Path]) -> Fidelity:
    """Compare ``model`` (a CostModel) with each of its training runs, key by key."""
    fidelity = Fidelity()
    labels = trace_labels(traces)
    for trace, run in zip(traces, runs, strict=True):
        values = run_values(model, run)
        if values is None:
            continue
        measured = _measured(run)
        for key in CHECK_KEYS:
            if key in model.missing:
                continue
            fidelity.checks.append(_check_key(model, run, labels[trace], key, values, measured))
    return fidelity


def trace_labels(traces: list[Path]) -> dict[Path, str]:
    """The shortest tail of each trace's path that tells it from the others (``s1/prog.trace``
    when every build folder holds a ``prog.trace``)."""
    parts = {t: Path(t).parts for t in traces}
    labels = {}
    for trace, mine in parts.items():
        depth = 1
        while depth < len(mine) and any(o[-depth:] == mine[-depth:] for t, o in parts.items()
                                        if t != trace and Path(t) != Path(trace)):
            depth += 1
        labels[trace] = str(Path(*mine[-depth:]))
    return labels


def run_values(model, run: RunObservation) -> dict[str, float] | None:
    """The model's parameter values in ``run`` (None if the run lacks one)."""
    values = {}
    for name, entry in model.parameters.items():
        if entry["variable"] not in run.params:
            return None
        values[name] = float(run.params[entry["variable"]])
    return values


def _measured(run: RunObservation) -> dict[int, dict[tuple, dict[str, float]]]:
    """rank -> (unit, kind, id) -> key -> measured count, summed over the contexts."""
    out: dict[int, dict[tuple, dict[str, float]]] = {}
    for rank in range(run.nranks):
        grouped: dict[tuple, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for item in run_items(run, rank):
            for key, value in item.counts.items():
                grouped[(item.unit, item.kind, item.id)][key] += float(value)
        out[rank] = grouped
    return out


def _check_key(model, run: RunObservation, trace: str, key: str, values: dict[str, float],
               measured: dict[int, dict[tuple, dict[str, float]]]) -> KeyCheck:
    by_rank = model.per_rank(key, values, run.nranks, run.threads)
    run_by_rank = np.array([sum(c.get(key, 0.0) for c in measured[r].values()) for r in range(run.nranks)])
    check = KeyCheck(trace, key, float(run_by_rank.sum()), float(by_rank.sum()),
                     modelled_max=float(np.max(by_rank, initial=0.0)), measured_max=float(np.max(run_by_rank, initial=0.0)))
    errors = [abs(_relative(m, r)) for m, r in zip(by_rank, run_by_rank, strict=True)]
    if errors:
        check.worst_rank = int(np.argmax(errors))
        check.worst_rank_error = float(_relative(by_rank[check.worst_rank], run_by_rank[check.worst_rank]))
    if check.off:
        check.culprits = _culprits(model, run, key, values, measured)
    return check


def _culprits(model, run: RunObservation, key: str, values: dict[str, float],
              measured: dict[int, dict[tuple, dict[str, float]]]) -> list[str]:
    """The blocks, loops and call sites whose modelled ``key`` differs most from the run's."""
    modelled: dict[tuple, float] = defaultdict(float)
    where: dict[tuple, str] = {}
    for index, item in enumerate(model.items):
        if key not in model.item_keys(item):
            continue
        ident = (item.unit, item.kind, item.id)
        modelled[ident] += float(model.per_rank(key, values, run.nranks, run.threads, index).sum())
        where[ident] = f"{Path(item.file or item.unit).name}:{item.line} {item.kind}"
    ran: dict[tuple, float] = defaultdict(float)
    for grouped in measured.values():
        for ident, counts in grouped.items():
            ran[ident] += counts.get(key, 0.0)
    differences = []
    for ident in set(modelled) | set(ran):
        diff = modelled.get(ident, 0.0) - ran.get(ident, 0.0)
        if abs(diff) > 1e-9 * max(1.0, abs(ran.get(ident, 0.0))):
            label = where.get(ident) or f"{Path(ident[0]).name} {ident[1]} {ident[2]} (not in the model)"
            differences.append((abs(diff), f"{label}: model {modelled.get(ident, 0.0):.6g}, "
                                           f"run {ran.get(ident, 0.0):.6g}"))
    return [text for _, text in sorted(differences, reverse=True)[:CULPRITS]]


def leave_one_out(traces: list[Path], build, params: dict[str, str] | None) -> list[dict[str, Any]]:
    """With three traces or more: for each, the model from the others predicts it (totals over the
    ranks, per key): ``build(traces, params, check=False, signatures=False)`` builds a model of
    the counts."""
    from perfeq.symbolic.observe import from_trace

    rows = []
    if len(traces) < 3:
        return rows
    labels = trace_labels(traces)
    for index, held in enumerate(traces):
        others = [t for i, t in enumerate(traces) if i != index]
        model = build(others, params, check=False, signatures=False)
        run = from_trace(held)
        values = run_values(model, run)
        if values is None:
            continue
        measured = _measured(run)
        for key in ("ops", "startup", "sent", "bytes"):
            predicted = float(model.per_rank(key, values, run.nranks, run.threads).sum())
            actual = sum(c.get(key, 0.0) for r in measured.values() for c in r.values())
            rows.append({"trace": labels[held], "key": key, "predicted": predicted, "measured": actual,
                         "error": _relative(predicted, actual)})
    return rows


def _finite(value: float) -> float | None:
    """A relative error for JSON: None where the run measured 0 and the model did not."""
    return value if np.isfinite(value) else None


def _relative(modelled: float, measured: float) -> float:
    if not np.isfinite(modelled):  # a count without a number (nan) is off, loudly, not within tolerance
        return float("inf")
    if measured == 0:
        return 0.0 if abs(modelled) < 1e-9 else float("inf")
    return (modelled - measured) / abs(measured)
