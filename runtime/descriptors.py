"""What the runtime stage reads from the instrumenter's descriptor files: block and loop op counts.

Part of perfeq stage 2 (runtime/).  The descriptor format (``perfeq-descriptors`` version 1,
written by perfeq/instrument/descriptors.py) belongs to the instrumenter; this small adapter is the
only runtime module that knows it, so the call graph and ``perfeq counts`` need no change when it
moves.  Per function it keeps:

* blocks: counter slot (None: the entry block, executed once per call) and operations per
  execution (``ops["total"]``), and whether the block runs inside an OpenMP parallel region;
* loops: entry slot, the slot of the body block (its executions are the iterations) and the
  operations of the header (init per entry, condition per test, step per iteration).

Operations are counted as perfeq.symbolic.chi counts them: ``ops_total`` is every thread's
operations, ``ops`` divides the parallel ones by the threads that share them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from perfeq.errors import UsageError

DESCRIPTORS_FORMAT = "perfeq-descriptors"
DESCRIPTORS_VERSION = 1


@dataclass(frozen=True)
class BlockCost:
    slot: int | None  # None: the entry block, executed once per call
    ops: float        # operations per execution
    parallel: bool


@dataclass(frozen=True)
class LoopCost:
    entry_slot: int | None
    body_slot: int | None
    init: float       # operations per entry
    cond: float       # per test (iterations + entries)
    step: float       # per iteration
    parallel: bool    # in a parallel region, or a worksharing loop


@dataclass(frozen=True)
class OpCounts:
    ops: float        # serial operations plus parallel ones divided by the threads
    ops_total: float  # every thread's operations

    def __add__(self, other: OpCounts) -> OpCounts:
        return OpCounts(self.ops + other.ops, self.ops_total + other.ops_total)


@dataclass(frozen=True)
class FunctionCosts:
    blocks: tuple[BlockCost, ...]
    loops: tuple[LoopCost, ...]


def _count(counters: dict[int, int], calls: int, slot: int | None) -> int:
    return calls if slot is None else counters.get(slot, 0)


@dataclass(frozen=True)
class UnitCosts:
    """The costs of one unit's functions, by function name."""

    path: Path
    digest: str | None
    functions: dict[str, FunctionCosts]

    def executions(self, function: str, counters: dict[int, int], calls: int) -> int:
        """Basic-block executions of one context of ``function`` (entry blocks: its calls)."""
        costs = self.functions.get(function)
        return 0 if costs is None else sum(_count(counters, calls, b.slot) for b in costs.blocks)

    def ops(self, function: str, counters: dict[int, int], calls: int, threads: int = 1) -> OpCounts:
        """Operations of one context of ``function`` with these counters and calls."""
        costs = self.functions.get(function)
        if costs is None:
            return OpCounts(0.0, 0.0)
        threads = max(threads, 1)
        ops = total = 0.0
        for block in costs.blocks:
            amount = _count(counters, calls, block.slot) * block.ops
            total += amount
            ops += amount / threads if block.parallel else amount
        for loop in costs.loops:
            entries = _count(counters, calls, loop.entry_slot)
            iterations = _count(counters, calls, loop.body_slot)
            amount = entries * loop.init + (entries + iterations) * loop.cond + iterations * loop.step
            total += amount
            ops += amount / threads if loop.parallel else amount
        return OpCounts(ops, total)


def _total(ops: Any, where: str) -> float:
    if isinstance(ops, dict) and isinstance(ops.get("total"), (int, float)) and not isinstance(ops["total"], bool):
        return float(ops["total"])
    raise UsageError(f"{where}: ops should be an object with a numeric 'total', not {ops!r}")


def _list(data: dict[str, Any], key: str, path: Path) -> list[dict[str, Any]]:
    items = data.get(key, [])
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise UsageError(f"{path}: '{key}' should be a list of objects")
    return items


@lru_cache(maxsize=64)
def _load(path: Path, mtime_ns: int) -> UnitCosts:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}: descriptor file is not JSON: {exc.msg}") from None
    if not isinstance(data, dict) or data.get("format") != DESCRIPTORS_FORMAT:
        raise UsageError(f"{path}: not a {DESCRIPTORS_FORMAT} file")
    if data.get("version") != DESCRIPTORS_VERSION:
        raise UsageError(f"{path}: descriptor version {data.get('version')!r} is not supported "
                         f"(this perfeq reads version {DESCRIPTORS_VERSION}); instrument the program again")
    functions = _list(data, "functions", path)
    names = [f.get("name") for f in functions]
    if not all(isinstance(name, str) for name in names):
        raise UsageError(f"{path}: every function needs a name")
    blocks: dict[int, list[BlockCost]] = {i: [] for i in range(len(functions))}
    loops: dict[int, list[LoopCost]] = {i: [] for i in range(len(functions))}
    block_slots: dict[int, int | None] = {}
    for block in _list(data, "blocks", path):
        where = f"{path}: block {block.get('id')}"
        function = block.get("function")
        if function not in blocks:
            raise UsageError(f"{where}: no function {function!r}")
        blocks[function].append(BlockCost(block.get("slot"), _total(block.get("ops"), where),
                                          bool(block.get("in_parallel"))))
        block_slots[block.get("id")] = block.get("slot")
    for loop in _list(data, "loops", path):
        where = f"{path}: loop {loop.get('id')}"
        function = loop.get("function")
        if function not in loops:
            raise UsageError(f"{where}: no function {function!r}")
        if loop.get("body_block") is None:
            continue  # not instrumented: its iterations are unknown
        loops[function].append(LoopCost(
            loop.get("entry_slot"), block_slots.get(loop["body_block"]), _total(loop.get("ops_init"), where),
            _total(loop.get("ops_cond"), where), _total(loop.get("ops_step"), where),
            bool(loop.get("in_parallel") or loop.get("worksharing"))))
    digest = data.get("digest")
    return UnitCosts(path=path, digest=digest if isinstance(digest, str) else None,
                     functions={names[i]: FunctionCosts(tuple(blocks[i]), tuple(loops[i]))
                                for i in range(len(functions))})


def load_unit_costs(path: str | Path | None) -> UnitCosts | None:
    """The costs in the descriptor file at ``path``; None when there is no such file."""
    if not path:
        return None
    file = Path(path)
    try:
        mtime = file.stat().st_mtime_ns
    except OSError:
        return None
    return _load(file, mtime)
