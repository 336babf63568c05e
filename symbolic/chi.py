"""The chi vector: operation counts per cost, assembled from execution counts (symbolic stage, 3.2).

Part of perfeq stage 3 (symbolic/): items from the descriptors' op counts (perfeq.instrument.descriptors).

One assembly serves both the measured counts of a trace (numbers) and the model (sympy
expressions), so the two can be compared key by key:

* ``ops``: operations, serial ones plus parallel ones divided by the threads that share them
  (the critical path of one process); ``ops_total`` counts every thread's operations;
* ``par``: serial-to-parallel transitions (OpenMP parallel region entries);
* ``startup``: messages on the critical path, what the start-up cost prices (a collective counts its
  algorithm's critical path, e.g. ceil(log2 P) for a binomial-tree broadcast, on every rank that
  calls it; a point-to-point send 1, see perfeq.symbolic.messages); ``sent``: messages this rank
  sends (a collective: the messages its algorithm sends from this rank), a count that is shown and
  self-checked, not priced;
* ``bytes``: bytes this rank sends;
* finer keys ``flops``, ``iops``, ``cmp``, ``loads``, ``stores``, ``calls``, and ``chain`` (those
  of the flops that extend a loop-carried accumulation; not more operations).

Loop headers count their initialisation once per entry, their condition once per test (iterations
plus entries) and their increment once per iteration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from perfeq.instrument.descriptors import (
    BlockDescriptor,
    CommDescriptor,
    LoopDescriptor,
    RegionDescriptor,
    UnitDescriptors,
)
from perfeq.instrument.opcount import OP_KINDS

CHI_KEYS = ("ops", "par", "l1", "l2", "page", "startup", "bytes")
# counted when a model is evaluated on a machine: the footprint rule's misses and faults per loop nest
# (linearize.misses) and the signature's lines from memory per reference (traffic.memory_lines)
FOOTPRINT_KEYS = ("l1", "l2", "page")
CACHE_KEYS = (*FOOTPRINT_KEYS, "mem")
SOURCE_KEYS = tuple(key for key in CHI_KEYS if key not in CACHE_KEYS)  # in the model: ops, par, startup, bytes


@dataclass
class Item:
    """One contribution: a block, a loop header, a region or an MPI call site, in one context."""

    kind: str  # block, loop, region, comm
    unit: str
    id: int
    line: int
    function: str
    context: str
    counts: dict[str, Any] = field(default_factory=dict)  # chi key -> value or expression
    file: str = ""  # the included .c file the item is in, when not the unit's own (FunctionDescriptor.file)

    @property
    def label(self) -> str:
        return f"{self.function}:{self.line} {self.kind} {self.id} [{self.context}]"


def block_item(unit: UnitDescriptors, block: BlockDescriptor, executions: Any, context: str, threads: Any,
               team: bool = False) -> Item:
    """A block's counts in one context; ``team``: the context is called from a parallel region (every
    thread runs it: its ``ops`` per thread are its total over T, as a block lexically in one)."""
    ops = block.ops
    item = Item("block", unit.source, block.id, block.line, _fname(unit, block.function), context,
                file=_ffile(unit, block.function))
    for kind in OP_KINDS:
        item.counts[kind] = executions * ops.get(kind, 0)
    total = executions * ops.get("total", 0)
    item.counts["ops_total"] = total
    item.counts["ops"] = total / threads if (block.in_parallel or team) else total
    item.counts["executions"] = executions
    return item


def loop_item(unit: UnitDescriptors, loop: LoopDescriptor, entries: Any, iterations: Any, context: str,
              threads: Any, team: bool = False) -> Item:
    item = Item("loop", unit.source, loop.id, loop.line, _fname(unit, loop.function), context,
                file=_ffile(unit, loop.function))
    tests = iterations + entries
    for kind in OP_KINDS:
        item.counts[kind] = (entries * loop.ops_init.get(kind, 0) + tests * loop.ops_cond.get(kind, 0)
                             + iterations * loop.ops_step.get(kind, 0))
    total = (entries * loop.ops_init["total"] + tests * loop.ops_cond["total"]
             + iterations * loop.ops_step["total"])
    item.counts["ops_total"] = total
    item.counts["ops"] = total / threads if (loop.in_parallel or loop.worksharing or team) else total
    item.counts["entries"] = entries
    item.counts["iterations"] = iterations
    return item


def region_item(unit: UnitDescriptors, region: RegionDescriptor, entries: Any, context: str) -> Item:
    item = Item("region", unit.source, region.id, region.line, _fname(unit, region.function), context,
                file=_ffile(unit, region.function))
    item.counts["par"] = entries
    return item


def comm_item(unit: UnitDescriptors, comm: CommDescriptor, sent: Any, nbytes: Any, critical: Any,
              context: str) -> Item:
    item = Item("comm", unit.source, comm.id, comm.line, _fname(unit, comm.function), context,
                file=_ffile(unit, comm.function))
    item.counts["startup"] = critical
    item.counts["bytes"] = nbytes
    item.counts["sent"] = sent
    return item


def totals(items: list[Item], add: Callable[[Any, Any], Any] | None = None) -> dict[str, Any]:
    """Sum of every key over the items (missing keys count as zero)."""
    out: dict[str, Any] = {key: 0 for key in (*CHI_KEYS, "ops_total", "sent", *OP_KINDS)}
    for item in items:
        for key, value in item.counts.items():
            if key in ("executions", "entries", "iterations"):
                continue
            out[key] = out.get(key, 0) + value if add is None else add(out.get(key, 0), value)
    return out


def _ffile(unit: UnitDescriptors, function: int) -> str:
    """The included .c file a function of the unit is defined in, or "" for the unit's own."""
    return unit.functions[function].file or ""


def _fname(unit: UnitDescriptors, function: int) -> str:
    return unit.functions[function].name
