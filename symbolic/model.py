"""The cost model of a program: symbolic chi per block, its file, and fast evaluation (symbolic stage).

A :class:`CostModel` is plain data: the model's symbols, and for every block, loop header, parallel
region and MPI call site in every call-graph context, its counts (chi keys) as sympy expressions
in the problem-size parameters, P, the rank and T.  It is written as versioned JSON
(``perfeq-model`` 1, docs/model.md) with expressions as ``srepr`` text, and evaluated with
``lambdify`` (numpy) for all ranks at once; the slowest rank is what the time equation uses.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from perfeq import __version__
from perfeq.arguments import lvalue_symbol
from perfeq.errors import ModelError, UsageError
from perfeq.files import check_document, read_json, write_atomic
from perfeq.instrument.descriptors import ParamDescriptor, declaring_function
from perfeq.symbolic import chi as chimod
from perfeq.symbolic import fidelity as fidelity_check
from perfeq.symbolic.counts import CountModel
from perfeq.symbolic.linearize import misses, nest_items
from perfeq.symbolic.machine import Machine
from perfeq.symbolic.messages import message_counts
from perfeq.symbolic.observe import (
    RunObservation,
    add_bound_value,
    bound_loops,
    called_in_team,
    from_trace,
)
from perfeq.symbolic.signature import ContextSignature, signature_from_dict, signature_to_dict
from perfeq.symbolic.symbols import RANK, P, T, lambdify_numpy, size_symbol
from perfeq.symbolic.sync import SiteRun, SyncSite, measured_run, synchronising
from perfeq.symbolic.traffic import block_lines, memory_lines

FORMAT = "perfeq-model"
# 2: items carry "chain" (chained flops); version 1 files are read without it.
# 3: "startup" is the messages on the critical path (the count the start-up cost prices) and "sent" the
# messages this rank sends; versions 1 and 2 stored these as "critical" and "startup", renamed on reading.
# 4: "sync", the synchronising MPI call sites with their measured compute bursts; older files have none.
VERSION = 4
COUNT_KEYS = ("ops", "ops_total", "par", "startup", "bytes", "sent", *chimod.OP_KINDS, "branch", "shared")
# count keys of a version 1 or 2 file -> their name since version 3
_RENAMED_BEFORE_3 = {"startup": "sent", "critical": "startup"}
# Loads made while other processes or threads of the program run on the node (1 when P T > 1, else
# 0; P and T are whole): they contend for the shared cache and memory, and cost more.  Derived from
# "loads", not stored in the file.
NODE_SHARED = sp.Min(P * T - 1, 1)
# Counts derived when the model is evaluated: key -> (the stored count it scales, factor)
DERIVED = {"shared": ("loads", NODE_SHARED)}


@dataclass
class ModelItem:
    kind: str
    unit: str
    id: int
    line: int
    function: str
    context: str
    counts: dict[str, sp.Expr]
    # the application signature (symbolic/signature.py): a block's {"executions", "parallel", "refs"},
    # an MPI call site's {"call", "calls"}; empty in models written before it
    signature: dict = field(default_factory=dict)
    file: str = ""  # the included .c file it is in, when not the unit's own (absent from the file then)

    @property
    def label(self) -> str:
        return f"{Path(self.file or self.unit).name}:{self.line} {self.function} {self.kind}"


@dataclass
class CostModel:
    program: str
    parameters: dict[str, dict]  # symbol name -> {variable, source, value in the run(s)}
    items: list[ModelItem]
    nests: list[dict]  # loop nests for the cache/page linearization (see linearize.py)
    fallbacks: list[str]
    traces: list[str]
    runs: list[dict] = field(default_factory=list)  # parameter values, P and T of each trace
    unused: list[str] = field(default_factory=list)  # parameter candidates no count depends on
    self_check: dict = field(default_factory=dict)  # perfeq.symbolic.fidelity: the model against its runs
    # counts a model file written by an older perfeq does not carry (version 1: "chain")
    missing: tuple[str, ...] = ()
    digest: str = ""  # the program's identity: program_digest of its instrumented units ("" when unknown)
    sync: list[SyncSite] = field(default_factory=list)  # synchronising MPI call sites (symbolic/sync.py)
    _compiled: dict = field(default_factory=dict, repr=False)

    @property
    def uses_mpi(self) -> bool:
        """Whether the program's runs initialised MPI (models written before this say so: True)."""
        return any(run.get("mpi", True) for run in self.runs) if self.runs else True

    def beyond_training(self, values: dict[str, float], procs: int, threads: int = 1) -> str | None:
        """Where ``values``, P and T leave the training runs' range, and what the model carries there
        that it did not derive from the source (the fitted, constant and measured counts and the
        recursion its fallbacks name, which extrapolate as forms guessed from a few runs); None
        inside the range, or when every count was derived."""
        outside = []
        for name, entry in self.parameters.items():
            seen = [run["params"][entry["variable"]] for run in self.runs
                    if isinstance(run.get("params", {}).get(entry["variable"]), (int, float))]
            if name in values and seen and not min(seen) <= values[name] <= max(seen):
                outside.append(f"{name}={values[name]:g} (runs: {_span(seen)})")
        for name, value in (("P", procs), ("T", threads)):
            seen = [run[name] for run in self.runs if isinstance(run.get(name), int)]
            if seen and not min(seen) <= value <= max(seen):
                outside.append(f"{name}={value} (runs: {_span(seen)})")
        guessed: dict[str, list[str]] = {}
        for note in self.fallbacks:
            match = _FALLBACK.match(note)
            if match and match["kind"] != "relaxed":
                guessed.setdefault(f"{match['what']} {match['kind']}", []).append(match["where"])
            elif "RECURSION NOT MODELLED" in note:
                guessed.setdefault("recursion", []).append(note.split(": RECURSION")[0])
        if not outside or not guessed:
            return None
        ops = self._ops_at({where for wheres in guessed.values() for where in wheres}, values, procs, threads)

        def ranked(wheres: list[str]) -> list[str]:
            return sorted(dict.fromkeys(wheres), key=lambda where: -ops.get(where, 0.0))

        listed = "; ".join(
            f"{len(wheres)} {what} ({', '.join(ranked(wheres)[:3])}{', ...' if len(set(wheres)) > 3 else ''})"
            for what, wheres in sorted(guessed.items(), key=lambda kv: (-max(ops.get(w, 0.0) for w in kv[1]),
                                                                          -len(kv[1]))))
        return (f"{', '.join(outside)} is beyond the training runs: counts the model fitted or measured instead of "
                f"deriving them from the source are extrapolated there (each kind's largest counts at this point first): {listed}")

    def _ops_at(self, wheres: set[str], values: dict[str, float], procs: int, threads: int) -> dict[str, float]:
        """Rank 0's operations at the point in the items at each ``file:line`` of ``wheres`` (a loop's
        header and the blocks on its line: a measure of its iterations there, not of the work nested
        in it); empty where they cannot be evaluated."""
        lines: dict[tuple[str, int], str] = {}
        for where in wheres:
            path, _, line = where.rpartition(":")
            if line.isdigit():
                lines[(Path(path).name, int(line))] = where
        rank = np.array([0])
        found: dict[str, float] = {}
        try:
            for index, item in enumerate(self.items):
                where = lines.get((Path(item.file or item.unit).name, item.line))
                if where is not None and "ops" in item.counts:
                    found[where] = found.get(where, 0.0) + float(self.per_rank("ops", values, procs, threads, index, rank)[0])
        except (ModelError, UsageError, KeyError, TypeError, ValueError, ZeroDivisionError):
            return {}
        return found

    def require(self, *keys: str) -> None:
        """ModelError when this model was written before perfeq counted one of ``keys``."""
        for key in keys:
            if key in self.missing:
                raise ModelError(f"{self.program}: the model was written by an older perfeq that did not count "
                                 f"'{key}'; rebuild it from its traces (perfeq model TRACE ...) to use that cost")

    # ---- symbols ------------------------------------------------------------------------------
    @property
    def size_symbols(self) -> list[sp.Symbol]:
        return [size_symbol(name) for name in self.parameters]

    @property
    def arguments(self) -> list[sp.Symbol]:
        return [*self.size_symbols, P, T, RANK]

    def totals(self) -> dict[str, sp.Expr]:
        """The chi of one rank, summed over every item, as expressions (rank still free).  Summed
        once per list of items (NPB BT's 854 items: 3.5 s a time, and every key compiled asked)."""
        cached = self._compiled.get("totals")
        if cached is None or cached[0] is not self.items or cached[1] != len(self.items):
            out: dict[str, list[sp.Expr]] = {}
            for item in self.items:
                for key, expr in item.counts.items():
                    out.setdefault(key, []).append(expr)
            sums = {key: sp.Add(*terms) for key, terms in out.items()}
            for key, (source, factor) in DERIVED.items():
                if source in sums:
                    sums[key] = sums[source] * factor
            cached = (self.items, len(self.items), sums)
            self._compiled["totals"] = cached
        return dict(cached[2])

    @staticmethod
    def item_keys(item: ModelItem) -> list[str]:
        """The count keys of one item, the :data:`DERIVED` ones included where it has their source."""
        return [*item.counts, *(key for key, (source, _) in DERIVED.items() if source in item.counts)]

    def item_expression(self, key: str, index: int) -> sp.Expr:
        """One item's count ``key`` (0 when it has none), the :data:`DERIVED` ones included."""
        counts = self.items[index].counts
        if key in DERIVED:
            source, factor = DERIVED[key]
            return counts[source] * factor if source in counts else sp.Integer(0)
        return counts.get(key, sp.Integer(0))

    # ---- evaluation ---------------------------------------------------------------------------
    def _function(self, key: str, index: int | None):
        cache_key = (key, index)
        if cache_key not in self._compiled:
            expr = self.totals().get(key, sp.Integer(0)) if index is None else self.item_expression(key, index)
            self._compiled[cache_key] = lambdify_numpy(self.arguments, expr)
        return self._compiled[cache_key]

    def check_values(self, values: dict[str, float]) -> dict[str, float]:
        missing = [name for name in self.parameters if name not in values]
        if missing:
            raise UsageError(f"missing parameter value: {', '.join(f'{m}=...' for m in missing)} "
                             f"(the model's parameters are {', '.join(self.parameters)}, and P)")
        # a candidate nothing depends on may be given (it changes nothing): perfeq counts n=... works
        ignored = {*self.unused, *map(lvalue_symbol, self.unused)}
        unknown = [name for name in values if name not in self.parameters and name not in ("P", "T", *ignored)]
        if unknown:
            raise UsageError(f"unknown parameter {unknown[0]} (the model's parameters are "
                             f"{', '.join(self.parameters)}, P and T)")
        return values

    def per_rank(self, key: str, values: dict[str, float], procs: int, threads: int = 1,
                 index: int | None = None, ranks: np.ndarray | None = None) -> np.ndarray:
        """Value of one chi key for each rank (all ranks, or the given ones)."""
        self.check_values({**values, "P": procs})
        self.require(key)
        ranks = np.arange(procs) if ranks is None else ranks
        args = [float(values[name]) for name in self.parameters] + [procs, threads, ranks]
        with np.errstate(all="ignore"):  # log2 0 at N = 0: nan, said by the callers, not a numpy warning
            result = self._function(key, index)(*args)
        return np.broadcast_to(np.asarray(result, dtype=float), ranks.shape).copy()

    def counts(self, values: dict[str, float], procs: int, threads: int = 1,
               machine: Machine | None = None) -> dict[str, Any]:
        """Predicted counts: per rank, their total and the slowest rank's, for every chi key."""
        out: dict[str, Any] = {"per_rank": {}, "total": {}, "slowest": {}}
        for key in COUNT_KEYS:
            if key in self.missing:  # not there: a profile that prices it refuses (FitError)
                continue
            values_by_rank = self.per_rank(key, values, procs, threads)
            out["per_rank"][key] = values_by_rank.tolist()
            out["total"][key] = float(values_by_rank.sum())
        if machine is not None:
            found = misses(machine, self, values, procs, threads)
            found["mem"] = memory_lines(machine, self, values, procs, threads)
            for key, by_rank in found.items():
                out["per_rank"][key] = by_rank.tolist()
                out["total"][key] = float(np.sum(by_rank))
        slowest = _slowest(out["per_rank"]) if procs else 0
        out["slowest_rank"] = slowest
        out["slowest"] = {key: out["per_rank"][key][slowest] for key in out["per_rank"]}
        return out

    def site_calls(self, index: int, values: dict[str, float], procs: int, threads: int = 1) -> float:
        """Calls of synchronising site ``index`` on the rank that calls it most (the critical path's)."""
        self.check_values({**values, "P": procs})
        key = ("sync", index)
        if key not in self._compiled:
            self._compiled[key] = lambdify_numpy(self.arguments, self.sync[index].calls)
        args = [float(values[name]) for name in self.parameters] + [procs, threads, np.arange(procs)]
        with np.errstate(all="ignore"):
            result = np.broadcast_to(np.asarray(self._compiled[key](*args), dtype=float), (procs,))
        return float(np.nanmax(result)) if procs else 0.0

    def grid(self, key: str, parameter: str, sizes, procs, fixed: dict[str, float], threads: int = 1) -> np.ndarray:
        """One chi key of the slowest rank over sizes x procs, shape (len(procs), len(sizes)).

        Vectorised for plots: the slowest rank is taken among ranks 0, 1, P/2, P-2 and P-1 (where
        block distributions put their extra rows and roots live); :meth:`counts` looks at all.
        """
        self.check_values({**fixed, parameter: 1.0})
        self.require(key)
        sizes = np.asarray(sizes, dtype=float)[None, :, None]
        p = np.asarray(procs, dtype=float)[:, None, None]
        ranks = np.stack([np.zeros_like(p), np.minimum(1, p - 1), np.floor(p / 2), np.maximum(p - 2, 0), p - 1],
                         axis=-1)[..., 0, :]
        args = [sizes if name == parameter else float(fixed[name]) for name in self.parameters]
        value = self._function(key, None)(*args, p, threads, ranks)
        shape = (len(procs), sizes.shape[1], 5)
        return np.broadcast_to(np.asarray(value, dtype=float), shape).max(axis=-1)

    def item_counts(self, values: dict[str, float], procs: int, threads: int, rank: int) -> list[dict[str, float]]:
        """Each item's counts on one rank (for per-block breakdowns)."""
        ranks = np.array([rank])
        rows = []
        for index, item in enumerate(self.items):
            rows.append({key: float(self.per_rank(key, values, procs, threads, index, ranks)[0])
                         for key in self.item_keys(item)})
        return rows

    def block_counts(self, values: dict[str, float], procs: int, threads: int, rank: int,
                     machine: Machine | None = None) -> dict[str, dict[str, float]]:
        """Each block's counts on one rank, by label ``file:line function kind [call path]`` (the items
        of one label, e.g. a loop's entries in several contexts of one path, summed); with ``machine``,
        the blocks' lines from memory (``mem``) too."""
        lines = block_lines(machine, self, values, procs, threads, rank) if machine is not None else {}
        blocks: dict[str, dict[str, float]] = {}
        rows = self.item_counts(values, procs, threads, rank)
        for index, (item, row) in enumerate(zip(self.items, rows, strict=True)):
            entry = blocks.setdefault(f"{item.label} [{item.context}]", {})
            for key, value in {**row, **({"mem": lines[index]} if index in lines else {})}.items():
                entry[key] = entry.get(key, 0.0) + value
        return blocks

    # ---- file ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "perfeq": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "program": self.program,
            "digest": self.digest,
            "parameters": self.parameters,
            "symbols": {"P": "MPI processes", "T": "OpenMP threads per process", "rank": "MPI rank"},
            "traces": self.traces,
            "runs": self.runs,
            "fallbacks": self.fallbacks,
            "unused_candidates": self.unused,
            "self_check": self.self_check,
            "items": [
                {"kind": it.kind, "unit": it.unit, "id": it.id, "line": it.line, "function": it.function,
                 "context": it.context,
                 "counts": {k: {"srepr": sp.srepr(v), "text": str(v)} for k, v in it.counts.items()},
                 **({"signature": signature_to_dict(it.signature)} if it.signature else {}),
                 **({"file": it.file} if it.file else {})}
                for it in self.items
            ],
            # a nest's "_fns" are its compiled functions (linearize.misses), not part of the file
            "nests": [{**{k: v for k, v in n.items() if not k.startswith("_")},
                       **{k: {"srepr": sp.srepr(n[k]), "text": str(n[k])} for k in ("footprint", "accesses", "executions")}}
                      for n in self.nests],
            "sync": [{"unit": site.unit, "id": site.id, "line": site.line, "function": site.function,
                      "context": site.context, "call": site.call, "synchronisation": site.synchronisation,
                      "calls": {"srepr": sp.srepr(site.calls), "text": str(site.calls)},
                      "runs": [run.to_dict() for run in site.runs]} for site in self.sync],
        }

    def save(self, path: Path) -> None:
        write_atomic(Path(path), json.dumps(self.to_dict(), indent=1) + "\n")


def program_digest(unit_digests) -> str:
    """One program's identity from the SHA-256 digests of its units' source texts (order-free), or ""
    when a unit's digest is unknown.  Two builds of the same sources (other -D sizes, other flags) are
    one program; a file renamed is the same program, and a file edited is another."""
    digests = sorted(unit_digests)
    if not digests or not all(isinstance(d, str) and d for d in digests):
        return ""
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()


def load_model(path: str | Path) -> CostModel:
    """Read a model file (perfeq.files: one-line errors naming the file); a trace given instead says so."""
    path = Path(path)
    try:
        data = read_json(path, error=ModelError)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such model file") from None
    except ModelError:
        if _is_trace(path):
            raise UsageError(f"{path} is a trace, not a model: build one with 'perfeq model {path}' "
                             f"(or see the run's own counts with 'perfeq counts --trace {path}')") from None
        raise
    data = check_document(data, path, FORMAT, (1, 2, 3, VERSION), error=ModelError, what="perfeq model")
    namespace = _namespace()

    def expr(entry: dict) -> sp.Expr:
        try:
            value = sp.sympify(entry["srepr"])
        except (sp.SympifyError, KeyError, TypeError, SyntaxError) as exc:
            raise ModelError(f"{path}: a count expression cannot be read: {exc}") from None
        # re-attach the numeric implementations of the MPI message functions
        return value.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ in namespace,
                             lambda e: namespace[e.func.__name__](*e.args))

    renamed = _RENAMED_BEFORE_3 if data["version"] < 3 else {}
    items = [ModelItem(i["kind"], i["unit"], i["id"], i["line"], i["function"], i["context"],
                       {renamed.get(k, k): expr(v) for k, v in i["counts"].items()},
                       signature_from_dict(i["signature"], expr) if i.get("signature") else {}, i.get("file", ""))
             for i in data["items"]]
    nests = [{**n, **{k: expr(n[k]) for k in ("footprint", "accesses", "executions")}} for n in data.get("nests", [])]
    try:
        sync = [SyncSite(s["unit"], s["id"], s["line"], s["function"], s["context"], s["call"], s["synchronisation"],
                         expr(s["calls"]), [SiteRun.from_dict(run) for run in s["runs"]]) for s in data.get("sync", [])]
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{path}: a synchronising call site cannot be read: {type(exc).__name__}: {exc}") from None
    return CostModel(data["program"], data["parameters"], items, nests, data.get("fallbacks", []),
                     data.get("traces", []), data.get("runs", []), data.get("unused_candidates", []),
                     _renamed_check(data.get("self_check", {}), renamed),
                     missing=("chain",) if data["version"] == 1 else (),
                     digest=str(data.get("digest", "")), sync=sync)


def _renamed_check(check: dict, renamed: dict[str, str]) -> dict:
    """A stored self-check with the count keys of an older file under their current names."""
    if not renamed or not check:
        return check
    rows = {part: [{**row, "key": renamed.get(row.get("key"), row.get("key"))} for row in check.get(part, [])]
            for part in ("checks", "held_out")}
    return {**check, **rows}


def _is_trace(path: Path) -> bool:
    """The file starts with a perfeq trace's header record (JSON lines, not one JSON document)."""
    try:
        with open(path, encoding="utf-8") as handle:
            first = json.loads(handle.readline())
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and first.get("format") == "perfeq-trace"


def _namespace() -> dict[str, Any]:
    from perfeq.symbolic.counts.comm import all_message_functions
    from perfeq.symbolic.symbols import GRID_FUNCTIONS

    return {**all_message_functions(), **GRID_FUNCTIONS}


# ---- building -------------------------------------------------------------------------------------
def _expandable(value: sp.Expr) -> bool:
    """Not a nested fraction of the sizes (a denominator that holds a denominator: ratios fitted
    under a data-dependent condition, Rodinia hotspot's border test, grow without bound when
    expanded, and its model did not end); those are kept as they are, which changes nothing but
    how they print."""
    return not any(p.exp.is_negative and any(q.exp.is_negative for q in p.base.atoms(sp.Pow))
                   for p in value.atoms(sp.Pow))


def build_model(traces: list[Path], params: dict[str, str] | None = None, check: bool = True,
                signatures: bool = True) -> CostModel:
    """Build the cost model from one or more instrumentation traces of the same program; with
    ``check``, its self-check against them (perfeq.symbolic.fidelity) is kept in the model; without
    ``signatures``, the blocks' memory references are left out (counts only: the leave-one-out
    models of the check, which compare counts)."""
    if not traces:
        raise UsageError("perfeq model needs at least one trace")
    traces, runs = _canonical_order(traces, [from_trace(t) for t in traces])
    runs = _read_as_bounds(runs, traces, params or {})
    primary, *others = _primary_first(runs)
    run = _rename_params(primary, params or {})
    counter = CountModel(run, others)
    contexts = counter.build()
    parts = [(counter, contexts, primary), *_other_contexts(primary, runs, contexts, params or {})]
    items: list[ModelItem] = []
    for part_counter, part_contexts, _ in parts:
        items += _context_items(part_counter, part_contexts, signatures)
    sync = [site for part_counter, part_contexts, original in parts
            for site in _sync_sites(part_counter, part_contexts, runs, original)]
    items = [it for it in items if any(v != 0 for v in it.counts.values())]
    for it in items:
        it.counts = {k: sp.nsimplify(sp.expand(v)) if not v.has(sp.Function) and _expandable(v) else v
                     for k, v in it.counts.items()}
    nests = [nest for part_counter, part_contexts, _ in parts for nest in nest_items(part_counter, part_contexts)]
    parameters, unused = _promoted(counter, items, nests, runs, traces)
    model = CostModel(
        program=next(iter(run.units.values())).source if run.units else str(traces[0]),
        parameters=parameters,
        items=items,
        nests=nests,
        fallbacks=_once([f.message() for part_counter, _, _ in parts for f in part_counter.fallbacks])
        + _confounded(parameters, runs)
        + _unsited(runs, traces) + _unrecorded_sizes(counter, runs) + _uninstrumented_loops(run)
        + _recursion(run, {name for part_counter, _, _ in parts for name in part_counter.fitted_recursion}),
        traces=[str(t) for t in traces],
        runs=[{"params": r.params, "P": r.nranks, "T": r.threads, "mpi": r.mpi} for r in runs],
        unused=unused,
        digest=program_digest(unit.digest for unit in run.units.values()),
        sync=sync,
    )
    if check:
        fidelity = fidelity_check.self_check(model, runs, traces)
        fidelity.held_out = fidelity_check.leave_one_out(traces, build_model, params)
        model.self_check = fidelity.to_dict()
    return model


def _context_items(counter: CountModel, contexts, signatures: bool) -> list[ModelItem]:
    """The model items (blocks, loops, regions, MPI call sites) of the counted contexts."""
    run = counter.run
    items: list[ModelItem] = []
    for cc in contexts:
        unit = cc.unit.data
        context = " > ".join(run.units[u].functions[f].name for u, f, _ in _path_parts(cc.obs))
        signature = ContextSignature(counter, cc)
        team = called_in_team(run.units, cc.obs)
        for block in unit.blocks:
            if block.id in cc.blocks:
                it = chimod.block_item(unit, block, cc.blocks[block.id], context, T, team)
                it.counts["branch"] = cc.blocks[block.id] * counter.mispredicted(cc.obs, cc.unit, block.id)
                items.append(_model_item(it))
                if block.refs and signatures:
                    items[-1].signature = {"executions": sp.sympify(cc.blocks[block.id]),
                                           "parallel": bool(block.in_parallel), "refs": signature.references(block)}
        for loop in unit.loops:
            if loop.id in cc.loop_iterations:
                it = chimod.loop_item(unit, loop, cc.loop_entries[loop.id], cc.loop_iterations[loop.id], context, T,
                                      team)
                it.counts["branch"] = cc.loop_entries[loop.id] * counter.loop_mispredicted(cc.obs, loop)
                items.append(_model_item(it))
                if loop.body_block is not None:  # its test and step run with its body's block
                    items[-1].signature = {"body": loop.body_block}
        for region in unit.regions:
            if region.id in cc.regions:
                items.append(_model_item(chimod.region_item(unit, region, cc.regions[region.id], context)))
        for comm in unit.comms:
            if comm.id in cc.comms:
                sent, nbytes, critical = cc.comms[comm.id]
                items.append(_model_item(chimod.comm_item(unit, comm, sent, nbytes, critical, context)))
                items[-1].signature = {"call": comm.call, "calls": sp.sympify(cc.blocks.get(comm.block, 0))}
    return items


def _other_contexts(primary: RunObservation, runs: list[RunObservation], counted, params: dict[str, str]):
    """The contexts the primary run never entered, counted from the runs that did: code that only
    runs on one process (``if (numprocs == 1) serial(); else parallel();``), or only at some sizes.
    Each such run in turn (most contexts first) is the main run of a count model over all the runs,
    which counts only the contexts no earlier model had; yields (count model, its contexts, the run)."""
    covered = {cc.obs.path() for cc in counted}
    rest = [r for r in runs if r is not primary]
    rest.sort(key=lambda r: -sum(1 for _ in r.contexts()))
    for other in rest:
        missing = {node.path() for node in other.contexts()} - covered
        if not missing:
            continue
        counter = CountModel(_rename_params(other, params), [r for r in runs if r is not other])
        contexts = counter.build(missing)
        covered |= missing
        if contexts:
            yield counter, contexts, other


def _sync_sites(counter: CountModel, contexts, runs: list[RunObservation], primary: RunObservation) -> list[SyncSite]:
    """The synchronising MPI call sites of every context: calls per rank (an expression) and the
    compute bursts each training run measured there (symbolic/sync.py)."""
    sites = []
    for cc in contexts:
        unit = cc.unit.data
        context = " > ".join(counter.run.units[u].functions[f].name for u, f, _ in _path_parts(cc.obs))
        for comm in unit.comms:
            kind = synchronising(comm.call)
            if kind is None or comm.id not in cc.comms or comm.block is None:
                continue
            calls = cc.blocks.get(comm.block)
            if calls is None:
                calls = counter.total(cc.obs, cc.unit, comm.block)
            site = SyncSite(unit.source, comm.id, comm.line, unit.functions[comm.function].name, context, comm.call,
                            kind, sp.nsimplify(sp.expand(calls)) if not calls.has(sp.Function) else calls)
            for run, node in counter._same_context(cc.obs):
                original = primary if run is counter.run else run
                index = next(i for i, r in enumerate(runs) if r is original)
                by_rank = {rank: sites_of.get(comm.id, []) for rank, sites_of in node.mpi.items()}
                measured = measured_run(index, run.nranks, dict(run.params), by_rank)
                if measured is not None:
                    site.runs.append(measured)
            sites.append(site)
    return sites


def _promoted(counter: CountModel, items: list[ModelItem], nests: list[dict], runs: list[RunObservation],
              traces: list[Path]) -> tuple[dict[str, dict], list[str]]:
    """The parameters of the model: the candidates some count or footprint depends on, each with a
    value in every trace (a UsageError naming the trace and the parameter otherwise); and the
    variables of the candidates nothing depends on (flags, option indices, unused options)."""
    used = set().union(*(v.free_symbols for it in items for v in it.counts.values()),
                       *(n[k].free_symbols for n in nests for k in ("footprint", "accesses", "executions")))
    parameters, unused = {}, []
    for variable, symbol in counter.param_symbols.items():
        if symbol not in counter.size_symbols:
            continue
        if symbol not in used:
            unused.append(variable)
            continue
        for trace, run in zip(traces, runs, strict=True):
            if variable not in run.params:
                raise UsageError(f"{trace}: no value of the parameter {symbol.name} ('{variable}'): the run "
                                 "did not reach the statement that sets it")
        parameters[symbol.name] = {"variable": variable, "value": runs[0].params.get(variable)}
    return parameters, unused


def _unsited(runs: list[RunObservation], traces: list[Path]) -> list[str]:
    """The messages each trace's MPI calls at no known call site sent (calls the program's source
    does not show: made in a library, or written by a macro perfeq could not see into): they are
    in neither the model nor the measured counts it is checked against, so they are said here."""
    found = []
    for trace, run in zip(traces, runs, strict=True):
        calls: dict[str, int] = {}
        sent = 0
        for ctx in run.contexts():
            for records in ctx.unsited.values():
                for rec in records:
                    messages = message_counts(rec.call, calls=rec.calls, nbytes=rec.bytes, comm_size=rec.comm_size,
                                              comm_rank=rec.comm_rank, root=rec.root).sent
                    if messages:
                        sent += messages
                        calls[rec.call] = calls.get(rec.call, 0) + rec.calls
        if sent:
            listed = ", ".join(f"{name} x{n}" for name, n in sorted(calls.items()))
            found.append(f"{trace}: MPI calls at no known call site sent {sent:g} messages ({listed}, all ranks): "
                         "not in the model (made in a library, or by a macro perfeq could not see into)")
    return found


def _uninstrumented_loops(run: RunObservation) -> list[str]:
    """Loops the instrumenter could not find in the source (a header a macro writes: Parboil lbm's
    SWEEP_START(...) ... SWEEP_END, its five grid sweeps): their bodies count once per pass, not per
    iteration, in the runs and so in the model; said here, where a user reads what the model left out
    (the warning of perfeq cc alone went unseen, and the model and the traces agreed on 13 operations
    for a loop of 100,000 iterations)."""
    return [f"{w.split(': warning: ')[0]}: loop NOT COUNTED: {w.split(': warning: ')[-1]}; its body's "
            "operations count once per pass, not per iteration (in the traces and the model alike)"
            for unit in run.units.values() for w in unit.warnings if "loop not found in the source" in w]


# a fallback line of the model: "file.c:12: loop modeled as fit: ..." (counts/base.Fallback.message)
_FALLBACK = re.compile(r"^(?P<where>.+?): (?P<what>[a-z][\w -]*?) modeled as (?P<kind>[\w-]+): ")


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:g}" if low == high else f"{low:g}-{high:g}"


def _recursion(run: RunObservation, fitted: set[str]) -> list[str]:
    """Functions that call themselves: the runtime folds their recursive calls into one context, so
    their calls are a ratio measured in one training run and the counts under them hold at that run's size
    only (BOTS nqueens: -95 % at 8x, with a self-check warning that did not say why); where that
    ratio was fitted over the runs (``fitted``, the count models' CountBase.fitted_recursion), the
    note says so (the fit is a guess beyond the runs: nqueens' a + b 4^n from 5, 6 and 7 queens is
    -36 % at 9)."""
    ran = {(ctx.unit, ctx.function) for ctx in run.contexts()}
    notes = []
    for key, unit in run.units.items():
        entered = {unit.functions[f].name for u, f in ran if u == key}
        for warning in unit.warnings:
            where, _, message = warning.partition(": warning: recursion is not supported: ")
            called = re.match(r"'([^']+)'", message)
            if not message or called is not None and called.group(1) not in entered:  # (a function never called)
                continue
            if called is not None and called.group(1) in fitted:
                notes.append(f"{where}: RECURSION NOT MODELLED: {message.split(';')[0]}; its calls per call site "
                             "are fitted over the training runs (a guess beyond them, named above) and what it "
                             "does per call is the runs' (measure at the size you predict)")
            else:
                notes.append(f"{where}: RECURSION NOT MODELLED: {message.split(';')[0]}; its calls are a number "
                             "per call site measured in one training run, so the counts under it do not follow the "
                             "problem size (measure at the size you predict)")
    return notes


def _confounded(parameters: dict[str, dict], runs: list[RunObservation]) -> list[str]:
    """Parameters with one value between them in every trace (PolyBench's NI = NJ = NK): no count can
    tell them apart, so the model holds where they are equal, and a form fitted in one stands for all."""
    if len(runs) < 2:
        return []
    groups: dict[tuple, list[str]] = {}
    for name, entry in parameters.items():
        values = tuple(run.params.get(entry["variable"]) for run in runs)
        if len(set(values)) > 1:
            groups.setdefault(values, []).append(name)
    return [f"parameters {', '.join(names)} have the same value in every trace ({', '.join(f'{v:g}' for v in values)}): "
            "the model cannot tell them apart and holds where they are equal; give traces where they differ"
            for values, names in groups.items() if len(names) > 1]


def _canonical_order(traces: list[Path], runs: list[RunObservation]) -> tuple[list[Path], list[RunObservation]]:
    """The traces and their runs in an order of their own, not the command line's: by the recorded
    parameters (by name, smaller values first), then processes, threads, the blocks they executed
    (a size no parameter records: an input's line count) and the file's digest, so
    that ``perfeq model a b`` and ``perfeq model b a`` build one model (the primary run among equals
    and the fits' first sample came from the order given: FAILURES.md 183).  Smaller first keeps
    what the usual order (the small run, then the larger) gave."""
    def key(pair: tuple[Path, RunObservation]):
        _, run = pair
        values = tuple((name, value is None, value or 0.0) for name, value in sorted(run.params.items()))
        return values, run.nranks, run.threads, _executions(run)

    pairs = []  # (the file is read for its digest only where the rest ties: repetitions of one run)
    for _, tied in itertools.groupby(sorted(zip(traces, runs, strict=True), key=key), key=key):
        tied = list(tied)
        pairs += sorted(tied, key=lambda pair: _digest(Path(pair[0]))) if len(tied) > 1 else tied
    return [t for t, _ in pairs], [r for _, r in pairs]


def _executions(run: RunObservation) -> float:
    """The blocks a run executed, summed over its contexts (all ranks and threads)."""
    slots = _block_slots(run)
    return sum(float(ctx.summed(slot) or 0) for ctx in run.contexts() for slot in slots.get((ctx.unit, ctx.function), ()))


def _block_slots(run: RunObservation) -> dict[tuple[str, int], list[int]]:
    """(unit, function) -> the counter slots of its blocks (the entry block has none)."""
    slots: dict[tuple[str, int], list[int]] = {}
    for name, unit in run.units.items():
        for b in unit.blocks:
            if b.slot is not None:
                slots.setdefault((name, b.function), []).append(b.slot)
    return slots


def _digest(path: Path) -> str:
    if not path.is_file():
        return str(path)
    sha = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            sha.update(chunk)
    return sha.hexdigest()


def _primary_first(runs: list[RunObservation]) -> list[RunObservation]:
    """The runs with the one whose call tree has the most contexts first, among equals the one that
    ran the most of its blocks and call sites, then the most processes (then the first in
    :func:`_canonical_order`): the model is built on that run's contexts (code that only runs on more processes, a halo exchange's
    packing functions, is in that run; a send a one-process run always handled locally has its
    sizes there), and the contexts only the other runs entered are added from them
    (:func:`_other_contexts`)."""
    def ran(run: RunObservation) -> int:  # blocks executed and MPI call sites reached, over the contexts
        count = 0
        slots = _block_slots(run)
        for ctx in run.contexts():
            count += sum(1 for slot in slots.get((ctx.unit, ctx.function), ()) if ctx.summed(slot))
            count += len({site for by_site in ctx.mpi.values() for site in by_site})
        return count

    keys = [(sum(1 for _ in run.contexts()), ran(run), run.nranks) for run in runs]
    best = max(range(len(runs)), key=lambda i: (*keys[i], -i))
    return [runs[best], *runs[:best], *runs[best + 1:]]


def _model_item(item: chimod.Item) -> ModelItem:
    counts = {k: sp.sympify(v) for k, v in item.counts.items() if k not in ("executions", "entries", "iterations")}
    return ModelItem(item.kind, item.unit, item.id, item.line, item.function, item.context, counts, file=item.file)


def _path_parts(ctx) -> list[tuple[str, int, int | None]]:
    parts = []
    node = ctx
    while node is not None:
        parts.append((node.unit, node.function, node.site))
        node = node.parent
    return list(reversed(parts))


def _slowest(per_rank: dict[str, list[float]]) -> int:
    """The rank with the most operations; among ranks with as many (to 1e-9), the one with the most
    messages on the critical path, then bytes (the interior ranks of a chain, not rank 0, whose
    left neighbour is MPI_PROC_NULL)."""
    ops = np.asarray(per_rank["ops"], dtype=float)
    ops = np.where(np.isfinite(ops), ops, -np.inf)  # (a count without a number is no rank's most)
    top = ops.max() if len(ops) else -np.inf
    if not np.isfinite(top):
        return 0
    tied = np.flatnonzero(ops >= top - 1e-9 * max(1.0, abs(top)))
    zeros = [0.0] * len(ops)
    return int(max(tied, key=lambda r: (per_rank.get("startup", zeros)[r], per_rank.get("bytes", zeros)[r], -r)))


def _named(param: ParamDescriptor, symbol: str) -> ParamDescriptor:
    """A candidate named with --param: a macro of the program's becomes a parameter like a -D one."""
    return dataclasses.replace(param, symbol=symbol, source="define" if param.source == "macro" else param.source)


def _once(messages: list[str]) -> list[str]:
    """Each message once, in first-seen order, with the number of contexts it was said in when more
    than one (graph500's model said the same line of aml.c 40 times, 524 lines for 150 messages)."""
    counts: dict[str, int] = {}
    for message in messages:
        counts[message] = counts.get(message, 0) + 1
    return [m if n == 1 else f"{m} (in {n} contexts)" for m, n in counts.items()]


def _unrecorded_sizes(counter: CountModel, runs: list[RunObservation]) -> list[str]:
    """Variables that bound loops perfeq could not model, hold one value in each run (on every rank)
    and differ between the runs, and that no statement records as a parameter (a size counted while reading
    an input file, Rodinia kmeans' numObjects): said with the --param that makes them one."""
    fallen = {f.where for f in counter.fallbacks if f.what == "loop"}
    found = []
    for unit in counter.run.units.values():
        name = unit.source
        variables = {loop.bound for loop in unit.loops if loop.bound and loop.bound.isidentifier()
                     and f"{name}:{loop.line}" in fallen}
        for variable in sorted(variables):
            if any(p.variable == variable for p in unit.params):
                continue
            values = []
            for run in runs:
                probe = dataclasses.replace(run, params={}, rank_params={})
                if not add_bound_value(probe, variable) or len(set(probe.rank_params[variable])) > 1:
                    break  # (a value that differs between the ranks is each rank's share, no size)
                values.append(probe.params[variable])
            if len(values) == len(runs) and len(set(values)) > 1:
                lines = ", ".join(str(loop.line) for loop in bound_loops(unit, variable))
                taken = {str(v) for v in counter.param_symbols.values()}
                symbol = variable.upper() if variable.upper() not in taken else variable
                found.append(f"{name}:{lines}: '{variable}' bounds these loops and differs between the traces "
                             f"({', '.join(f'{v:g}' for v in values)}) but no statement records it (counted while "
                             f"reading input?): give --param {symbol}={variable} to make it a parameter")
    return found


def _read_as_bounds(runs: list[RunObservation], traces: list[Path], params: dict[str, str]) -> list[RunObservation]:
    """``--param N=n`` for a variable no statement records but loops read as their bound (a size
    the program counts while reading its input file): a user parameter of the units with such
    loops, its value in each run the bounds' (symbolic.observe.add_bound_value); a UsageError
    naming the trace where the bounds do not give one value."""
    for variable in params.values():
        if any(p.variable == variable for run in runs for unit in run.units.values() for p in unit.params):
            continue
        changed = []
        for run, trace in zip(runs, traces, strict=True):
            units = {path: dataclasses.replace(unit, params=[*unit.params, ParamDescriptor(
                         variable=variable, symbol=variable, source="user", function=declaring_function(unit, variable),
                         line=0, text=variable)]) if bound_loops(unit, variable) else unit
                     for path, unit in run.units.items()}
            read = any(unit is not run.units[path] for path, unit in units.items())
            run = dataclasses.replace(run, units=units, params=dict(run.params), rank_params=dict(run.rank_params))
            if read and not add_bound_value(run, variable):
                raise UsageError(f"{trace}: no value of '{variable}': the loops that read it as their bound "
                                 "did not run, or saw it change")
            changed.append(run)
        runs = changed
    return runs


def _rename_params(run: RunObservation, params: dict[str, str]) -> RunObservation:
    """``--param N=n``: the model symbol N stands for the program variable n.  The run with renamed
    copies of its units' parameter descriptors (the descriptors read stay as they are)."""
    units = run.units
    for symbol, variable in params.items():
        if not any(p.variable == variable for unit in units.values() for p in unit.params):
            found = ", ".join(sorted({p.variable for unit in units.values() for p in unit.params})) or "none"
            raise UsageError(f"--param {symbol}={variable}: the program has no parameter variable '{variable}' "
                             f"(found: {found})")
        units = {path: dataclasses.replace(unit, params=[_named(p, symbol) if p.variable == variable else p
                                                         for p in unit.params])
                 for path, unit in units.items()}
    return dataclasses.replace(run, units=units)
