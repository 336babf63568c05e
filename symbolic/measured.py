"""The counts an instrumentation run actually performed, per rank (the ground truth of the model).

Assembled by the same code as the model's counts (perfeq.symbolic.chi), from the trace's counters:
block executions, loop entries and iterations, region entries, and the MPI wrappers' records
turned into messages by perfeq.runtime.mpi.calls.
"""

from __future__ import annotations

from typing import Any

from perfeq.symbolic import chi as chimod
from perfeq.symbolic.messages import MessageCounts, message_counts
from perfeq.symbolic.observe import RunObservation


def measured_counts(run: RunObservation) -> dict[str, Any]:
    """Per-rank and total chi of a run: ``{"per_rank": {rank: {key: value}}, "total": {...}}``."""
    per_rank: dict[int, dict[str, float]] = {}
    for rank in range(run.nranks):
        items: list[chimod.Item] = []
        for ctx in run.contexts():
            unit = run.units.get(ctx.unit)
            if unit is None:
                continue
            fn = ctx.function
            label = unit["functions"][fn]["name"]
            for block in unit["blocks"]:
                if block["function"] == fn:
                    items.append(chimod.block_item(unit, block, ctx.counter(rank, block["slot"]), label, run.threads))
            for loop in unit["loops"]:
                if loop["function"] == fn and loop["body_block"] is not None:
                    entries = ctx.counter(rank, loop["entry_slot"])
                    iterations = ctx.counter(rank, unit["blocks"][loop["body_block"]]["slot"])
                    items.append(chimod.loop_item(unit, loop, entries, iterations, label, run.threads))
            for region in unit["regions"]:
                if region["function"] == fn:
                    items.append(chimod.region_item(unit, region, ctx.counter(rank, region["slot"]), label))
            for comm in unit["comms"]:
                if comm["function"] != fn:
                    continue
                total = MessageCounts()
                for rec in ctx.mpi.get(rank, {}).get(comm["id"], []):
                    total = total + message_counts(rec.call, calls=rec.calls, nbytes=rec.bytes,
                                                   comm_size=rec.comm_size, comm_rank=rec.comm_rank, root=rec.root)
                items.append(chimod.comm_item(unit, comm, total.sent, total.bytes_sent, total.critical, label))
        per_rank[rank] = {k: float(v) for k, v in chimod.totals(items).items()}
    keys = next(iter(per_rank.values())).keys() if per_rank else []
    total = {k: sum(r[k] for r in per_rank.values()) for k in keys}
    return {"per_rank": per_rank, "total": total, "nranks": run.nranks, "threads": run.threads,
            "params": run.params}
