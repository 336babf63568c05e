"""The convolution: a model's application signature priced with a probe file (Snavely et al., Eq. 1).

Part of fitting/convolution: no fit, no runs of the program.  For every item of the model
(symbolic/model.py) on every rank:

* a block's memory time is the sum over its references (symbolic/signature.py) of its accesses at
  the probe rate of the level and pattern that serve them: the reuse distance (the smallest of the
  reference's layer-condition candidates, or, with the paper's rule, its nest's footprint) is the
  working set at which the ``read`` (unit stride, invariant), ``stride`` (strides of a line or more,
  indirect) and ``update`` (stores) curves are read, for the processes placed on one node; loads
  and stores the references do not account for (``p->n``, a loop header's) at the smallest working set;
* its compute time is its additions, chained additions, integer operations and comparisons, and
  mispredicted branches at the probes' costs;
* the two are combined by the overlap rule (:data:`OVERLAPS`, docs/convolution.md);
* an MPI call site costs its calls at the probe's collective curve on that P, else its
  critical-path messages at the ping-pong time of its message size.

The slowest rank's sum is the prediction; the same with every probe at the quartile that makes it
faster and at the one that makes it slower is the band (not a statistical interval).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from perfeq.errors import UsageError
from perfeq.fitting.convolution.probecosts import WORD, CacheLevel, ProbeCosts
from perfeq.symbolic.signature import NEST
from perfeq.symbolic.symbols import lambdify_numpy
from perfeq.symbolic.traffic import moved_per_access, rows_apart

OVERLAPS = ("max", "sum")
CACHE_RULES = ("layer", "footprint")


@dataclass
class Priced:
    """One model item priced on every rank (arrays over ranks) and described on the slowest."""

    label: str
    kind: str  # block, loop, comm, region
    memory: np.ndarray
    compute: np.ndarray
    comm: np.ndarray
    time: np.ndarray
    level: str = ""
    pattern: str = ""
    moved: np.ndarray | None = None  # bytes the references move (for the effective bandwidth)
    source: str = ""  # where a message cost came from
    refs: list[dict] = field(default_factory=list)  # per reference on the slowest rank


@dataclass
class Convolution:
    """The prediction: per-rank totals, the slowest rank's items, the band."""

    program: str
    values: dict[str, float]
    procs: int
    threads: int
    per_node: int
    overlap: str
    rule: str
    total: np.ndarray
    slowest: int
    items: list[Priced]
    band: tuple[float, float]
    levels: list[CacheLevel]
    costs: dict[str, float]
    notes: list[str]

    @property
    def seconds(self) -> float:
        return float(self.total[self.slowest])


class _Evaluator:
    """Expressions of the model evaluated for every rank at the given values (lambdified once)."""

    def __init__(self, model, values: dict[str, float], procs: int, threads: int):
        self.model = model
        self.ranks = np.arange(procs)
        self.args = [float(values[name]) for name in model.parameters] + [procs, threads, self.ranks]
        self._cache: dict[sp.Expr, object] = {}

    def __call__(self, expr: sp.Expr) -> np.ndarray:
        if expr not in self._cache:
            value = rows_apart(expr).xreplace({sp.zoo: sp.nan, sp.oo: sp.nan})
            try:
                self._cache[expr] = None if value.free_symbols - set(self.model.arguments) else \
                    lambdify_numpy(self.model.arguments, value)
            except (KeyError, TypeError, ValueError, NameError):  # a form numpy cannot print: unknown
                self._cache[expr] = None
        function = self._cache[expr]
        if function is None:
            return np.full(self.ranks.shape, np.nan)
        with np.errstate(all="ignore"):
            result = function(*self.args)
        return np.broadcast_to(np.asarray(result, dtype=float), self.ranks.shape).astype(float)


def convolve(model, costs: ProbeCosts, values: dict[str, float], procs: int, threads: int = 1, *,
             overlap: str = "max", rule: str = "layer", band: bool = True,
             ranks_per_node: int | None = None) -> Convolution:
    """The fit-free prediction of ``model`` at ``values``, P = ``procs``, on the probed machine.

    ``ranks_per_node`` (default: all P on one node) places the ranks, ``ceil(P / ranks_per_node)``
    nodes: the memory curves are read for the processes of one node (contention, the last level's
    share), and with more than one node every message on the critical path is priced at the
    ping-pong across nodes (the probe file's ``pingpong_inter``; within a node when it has none, said).
    """
    if overlap not in OVERLAPS or rule not in CACHE_RULES:
        raise UsageError(f"overlap must be one of {OVERLAPS} and the cache rule one of {CACHE_RULES}")
    if not any(item.signature for item in model.items):
        raise UsageError(f"{model.program}: the model has no application signature (it was built by an "
                         "older perfeq): rebuild it with perfeq model TRACE ... to predict from probes")
    model.check_values({**values, "P": procs})
    if ranks_per_node is not None and ranks_per_node < 1:
        raise UsageError(f"ranks per node must be at least 1, not {ranks_per_node}")
    on_node = min(procs, ranks_per_node or procs)
    per_node = on_node * threads  # the processes (and their threads) sharing one node
    nodes = -(-procs // on_node)
    across = nodes > 1
    evaluate = _Evaluator(model, values, procs, threads)
    counts = [{key: model.per_rank(key, values, procs, threads, index) for key in model.item_keys(item)
               if key in ("flops", "chain", "iops", "addr", "div", "math", "cmp", "branch", "loads", "stores", "ops", "ops_total",
                          "startup", "bytes", "sent")} for index, item in enumerate(model.items)]
    priced = _price(model, costs, counts, evaluate, procs, per_node, overlap, rule, across) + _launch(model, costs, procs)
    total = np.sum([p.time for p in priced], axis=0) if priced else np.zeros(procs)
    slowest = int(np.argmax(total)) if procs else 0
    low = high = float(total[slowest])
    if band:
        ends = []
        for bound in ("fast", "slow"):
            other = (_price(model, costs.at(bound), counts, evaluate, procs, per_node, overlap, rule, across)
                     + _launch(model, costs.at(bound), procs))
            ends.append(float(np.max(np.sum([p.time for p in other], axis=0))) if other else 0.0)
        low, high = min(ends), max(ends)
    notes = _notes(model, costs, per_node, nodes)
    used = {"add (s)": costs.compute("flops_independent"), "chained add (s)": costs.compute("flops_chained"),
            "integer op (s)": costs.compute("int_ops"), "division (s)": costs.compute("divide"),
            "exp/log call (s)": costs.compute("math"),
            "mispredicted branch (s)": costs.misprediction()}
    return Convolution(model.program, values, procs, threads, per_node, overlap, rule, total, slowest, priced,
                       (low, high), costs.levels(per_node), used, notes)


def _notes(model, costs: ProbeCosts, per_node: int, nodes: int) -> list[str]:
    notes = ["fit-free: every cost comes from the probe file; no run of this program was timed"]
    if nodes > 1:
        inter = costs.results.curve("pingpong_inter") is not None
        notes.append(f"{nodes} nodes: messages on the critical path priced at the ping-pong across nodes"
                     + ("" if inter else " - not in the probe file (perfeq probe --across-launcher): priced "
                        "within a node, too fast"))
    cores = int(costs.machine.get("cores") or 0)
    if cores and per_node > cores:
        notes.append(f"{per_node} processes on a node of {cores} cores: memory rates of the probe with the most "
                     "processes, and no time for waiting for a core")
    if model.uses_mpi and costs.launch(1) is None:
        notes.append("not priced: starting the job (mpiexec, MPI_Init): the probe file has no 'launch' curve "
                     "(written by an older perfeq probe)")
    if costs.results.curve("divide") is None:
        notes.append("not priced: divisions beyond an addition (the probe file has no 'divide' curve: written by "
                     "an older perfeq probe)")
    if costs.results.curve("math") is None:
        notes.append("not priced: calls of exp, log, pow, sin ... (the probe file has no 'math' curve: written by "
                     "an older perfeq probe)")
    notes.append("not priced: calls of the program's and other libraries' functions (no probe measures them)")
    for fallback in model.fallbacks[:3]:
        notes.append(f"model fallback: {fallback}")
    return notes


def _launch(model, costs: ProbeCosts, procs: int) -> list[Priced]:
    """Starting and ending the job (the launcher, MPI_Init, MPI_Finalize) for a program whose runs
    initialised MPI, from the probe file's ``launch`` curve: every rank waits for it."""
    found = costs.launch(procs) if model.uses_mpi else None
    if found is None:
        return []
    seconds, source = found
    zero = np.zeros(procs)
    return [Priced("job launch (launcher, MPI_Init/Finalize)", "launch", zero, zero, zero, np.full(procs, seconds),
                   source=source)]


def _price(model, costs: ProbeCosts, counts, evaluate, procs, per_node, overlap, rule, across=False) -> list[Priced]:
    levels = costs.levels(per_node)
    unit_time = _UnitTimes(costs, per_node)
    bodies = {(item.unit, item.context, item.id): index for index, item in enumerate(model.items)
              if item.kind == "block"}
    headers: dict[int, list[int]] = {}  # a body block's item -> its loop header's items
    for index, item in enumerate(model.items):
        body = bodies.get((item.unit, item.context, item.signature.get("body"))) if item.kind == "loop" else None
        if body is not None:
            headers.setdefault(body, []).append(index)
    merged = {index for found in headers.values() for index in found}
    out = []
    for index, item in enumerate(model.items):
        if index in merged:
            continue  # priced with its body block (one basic block of machine code)
        row = counts[index]
        for header in headers.get(index, []):
            row = {key: row.get(key, 0) + value for key, value in counts[header].items()} | {
                key: value for key, value in row.items() if key not in counts[header]}
        zero = np.zeros(procs)
        if item.kind == "comm":
            comm, source = _message_time(item, row, evaluate, costs, procs, across)
            out.append(Priced(item.label, "comm", zero, zero, comm, comm, source=source))
            continue
        if item.kind == "region":
            continue  # entering a parallel region: no probe measures it
        share = _share(row)
        # a division: its throughput on top of the operation priced with the others
        compute = share * (np.maximum(row.get("flops", zero) - row.get("chain", zero), 0) * costs.compute("flops_independent")
                           + row.get("chain", zero) * costs.compute("flops_chained")
                           + (np.maximum(row.get("iops", zero) - row.get("addr", zero), 0) + row.get("cmp", zero))
                           * costs.compute("int_ops")
                           + row.get("div", zero) * costs.compute("divide")
                           + row.get("math", zero) * costs.compute("math")
                           + row.get("branch", zero) * costs.misprediction())
        memory, moved, refs = _memory_time(item, row, share, evaluate, levels, unit_time, rule)
        time = np.maximum(memory, compute) if overlap == "max" else memory + compute
        main = max(refs, key=lambda r: r["seconds"], default=None)
        out.append(Priced(item.label, item.kind, memory, compute, zero, time,
                          level=main["level"] if main else "", pattern=main["pattern"] if main else "",
                          moved=moved, refs=refs))
    return out


def _share(row: dict) -> np.ndarray:
    """The part of an item's operations one thread does (ops / ops_total: 1 / T in parallel code)."""
    ops, total = row.get("ops"), row.get("ops_total")
    if ops is None or total is None:
        return np.ones(1)
    with np.errstate(all="ignore"):
        return np.where(total > 0, ops / np.where(total > 0, total, 1), 1.0)


class _UnitTimes:
    """Seconds per access of a pattern at a working set, from the probes' memory curves."""

    def __init__(self, costs: ProbeCosts, per_node: int):
        self.costs = costs
        self.k = per_node
        self.line = float(costs.machine.get("line_bytes", 64))

    def rate(self, curve: str, working_set) -> np.ndarray:
        return self.costs.memory_rate(curve, self.k, working_set)

    def access(self, pattern: str, mode: str, element: int, stride, working_set) -> tuple[np.ndarray, np.ndarray]:
        """(seconds per access, bytes moved per access) of one reference."""
        read = self.rate("read", working_set)
        moved = np.broadcast_to(moved_per_access(pattern, element, stride, self.line), np.shape(read)).astype(float)
        if pattern == "indirect" or (pattern == "strided" and np.all(np.nan_to_num(stride, nan=np.inf) * element >= self.line)):
            seconds = WORD / self.rate("stride", working_set)  # a line per access: the stride curve's rate
        else:  # unit, invariant, unknown, and strides within a line: the bytes moved at the read rate
            seconds = moved / read
        if mode in ("write", "update"):  # a store moves its line in and out: update's 16 B per element
            seconds = seconds * 2.0 * read / self.rate("update", working_set)
            moved = moved * 2
        return seconds, moved


def _memory_time(item, row, share, evaluate, levels, unit_time, rule):
    """(seconds, bytes moved, per-reference description) of one block's or loop header's accesses."""
    zero = np.zeros_like(evaluate.ranks, dtype=float)
    signature = item.signature
    refs = signature.get("refs", []) if item.kind == "block" else []
    # executions that cannot be evaluated: the references' loads count as the item's other loads
    executions = np.nan_to_num(evaluate(signature["executions"]), nan=0.0) if refs else zero
    seconds, moved, described = zero.copy(), zero.copy(), []
    loads = stores = zero
    for ref in refs:
        candidates = [(what, evaluate(value)) for what, value in ref.reuse]
        candidates = [(what, np.nan_to_num(v, nan=np.inf)) for what, v in candidates]
        if rule == "footprint":
            nest = [c for c in candidates if c[0] == NEST]
            candidates = nest or candidates
        if candidates:
            stack = np.vstack([v for _, v in candidates])
            working_set = np.min(stack, axis=0)
            reason = candidates[int(np.argmin(stack[:, 0]))][0]
        else:
            working_set, reason = np.full(zero.shape, np.inf), "no reuse known"
        stride = evaluate(ref.stride) if ref.stride is not None else np.full(zero.shape, np.nan)
        if ref.pattern == "strided" and ref.stride is not None and not any(
                s.name.startswith("row_") for s in ref.stride.free_symbols):
            working_set, conflicts = _conflicts(levels, working_set, stride * ref.element, unit_time.line)
            reason = f"{reason}; {conflicts}" if conflicts else reason
        per_access, per_moved = unit_time.access(ref.pattern, ref.mode, ref.element, stride, working_set)
        accesses = executions * share
        seconds += accesses * per_access
        moved += accesses * per_moved
        loads = loads + executions * (ref.mode in ("read", "update"))
        stores = stores + executions * (ref.mode in ("write", "update"))
        level = _level(levels, float(working_set[0]) if np.isfinite(working_set[0]) else np.inf)
        described.append({"array": ref.array, "index": ref.index, "mode": ref.mode, "line": ref.line,
                          "pattern": ref.pattern, "level": level, "working_set": float(working_set[0]),
                          "reuse": reason, "seconds": float((accesses * per_access)[0]),
                          "bandwidth": float(per_moved[0] / per_access[0]) if per_access[0] > 0 else 0.0})
    # loads and stores no reference accounts for (struct fields, loop headers): at the smallest working set
    smallest = np.zeros(zero.shape)
    other_loads = np.maximum(row.get("loads", zero) - loads, 0) * share
    other_stores = np.maximum(row.get("stores", zero) - stores, 0) * share
    load_time, _ = unit_time.access("unit", "read", WORD, None, smallest)
    store_time, _ = unit_time.access("unit", "write", WORD, None, smallest)
    seconds += other_loads * load_time + other_stores * store_time
    moved += (other_loads + 2 * other_stores) * WORD
    return seconds, moved, described


def _conflicts(levels: list[CacheLevel], working_set: np.ndarray, stride_bytes: np.ndarray, line: float
               ) -> tuple[np.ndarray, str]:
    """The working set at which a strided reference is served, with the sets its stride can use.

    Lines ``stride / line`` apart map to every gcd(sets, stride / line)-th set of a cache (a column
    walk of a 512-double row-major matrix: one set of a 64-set L1 in 64): the stream keeps that
    fraction of the level, so it is served by the first level whose capacity holds its working set
    times that factor.  Where that is a higher level than capacity alone says, the working set is
    moved to the middle (geometric) of that level on the probe curves.  Levels without a known
    associativity (a probe file written before it) conflict with nothing.  Returns the working sets
    and a note (empty when no conflict moved any)."""
    out = np.array(working_set, dtype=float, copy=True)
    cached = [level for level in levels if math.isfinite(level.bytes)]
    moved = ""
    for index, (ws, stride) in enumerate(zip(out, np.broadcast_to(stride_bytes, out.shape), strict=True)):
        stride = abs(stride)  # a walk backwards maps to the same sets
        if not (math.isfinite(ws) and math.isfinite(stride)) or stride < line or stride % line:
            continue
        step = int(stride // line)
        by_capacity = next((i for i, level in enumerate(cached) if ws <= level.bytes), len(cached))
        served = next((i for i, level in enumerate(cached) if ws * level.conflict(step) <= level.bytes), len(cached))
        if served <= by_capacity:
            continue
        low = cached[served - 1].bytes
        out[index] = math.sqrt(low * cached[served].bytes) if served < len(cached) else 4 * low
        if not moved:
            skipped = ", ".join(f"{level.name} 1/{level.conflict(step)}" for level in cached[by_capacity:served])
            moved = f"stride {stride:.0f} B keeps {skipped} of the sets"
    return out, moved


def _level(levels: list[CacheLevel], working_set: float) -> str:
    for level in levels:
        if working_set <= level.bytes:
            return level.name
    return "memory"


def _message_time(item, row, evaluate, costs: ProbeCosts, procs: int, across: bool = False
                  ) -> tuple[np.ndarray, str]:
    """Seconds of one MPI call site on every rank, and the curve that priced it."""
    zero = np.zeros(procs)
    # model format 3: startup = messages on the critical path, sent = messages this rank sends
    sent, nbytes, critical = row.get("sent", zero), row.get("bytes", zero), row.get("startup", zero)
    if not np.any(critical) and not np.any(sent):
        return zero, ""
    size = float(np.sum(nbytes) / np.sum(sent)) if np.sum(sent) > 0 else 0.0
    call = item.signature.get("call", "")
    calls = evaluate(item.signature["calls"]) if "calls" in item.signature else None
    collective = costs.collective(call, procs, size) if calls is not None else None
    if collective is not None:
        seconds, source = collective
        return calls * seconds, f"{source} at {size:.0f} B"
    seconds, source = costs.message(size, across)
    return critical * seconds, f"{source} at {size:.0f} B x critical path"
