"""The convolution's prediction as text and JSON: the total, the band, and the per-block table of
Snavely et al. (block file:line, level, pattern, bandwidth, share of time) (fitting/convolution)."""

from __future__ import annotations

from typing import Any

import numpy as np

from perfeq.fitting.convolution.convolve import Convolution, Priced

ROWS = 15  # blocks shown in the table; the rest summed in one line


def _row(item: Priced, rank: int) -> dict[str, Any]:
    memory, time = float(item.memory[rank]), float(item.time[rank])
    moved = float(item.moved[rank]) if item.moved is not None else 0.0
    return {"item": item.label, "kind": item.kind, "level": item.level, "pattern": item.pattern,
            "bandwidth": moved / memory if memory > 0 else 0.0, "memory": memory,
            "compute": float(item.compute[rank]), "comm": float(item.comm[rank]), "seconds": time,
            "source": item.source,
            "refs": item.refs}


def rows(conv: Convolution) -> list[dict[str, Any]]:
    """The items of the slowest rank with a time, slowest first, each with its share."""
    total = conv.seconds or 1.0
    found = [_row(item, conv.slowest) for item in conv.items]
    found = [r for r in found if r["seconds"] > 0]
    for r in found:
        r["share"] = r["seconds"] / total
    return sorted(found, key=lambda r: -r["seconds"])


def to_dict(conv: Convolution) -> dict[str, Any]:
    parts = {key: float(np.sum([getattr(i, key)[conv.slowest] for i in conv.items])) if conv.items else 0.0
             for key in ("memory", "compute", "comm")}
    parts["launch"] = float(sum(i.time[conv.slowest] for i in conv.items if i.kind == "launch"))
    return {"fit_free": True, "program": conv.program, "values": conv.values, "P": conv.procs, "T": conv.threads,
            "processes_per_node": conv.per_node, "overlap": conv.overlap, "cache_rule": conv.rule,
            "slowest_rank": conv.slowest, "seconds": conv.seconds,
            "band": {"low": conv.band[0], "high": conv.band[1],
                     "meaning": "every probe at the quartile that makes the prediction faster / slower; "
                                "not a statistical interval"},
            "parts": parts, "levels": [{"name": lv.name, "bytes": lv.bytes} for lv in conv.levels],
            "costs": conv.costs, "notes": conv.notes, "items": rows(conv)}


def format_convolution(conv: Convolution) -> str:
    data = to_dict(conv)
    lines = [f"predicted time {conv.seconds:.4g} s (fit-free: probes and convolution, no fitted cost)",
             f"  band {conv.band[0]:.4g} .. {conv.band[1]:.4g} s: every probe at its faster / slower quartile "
             "together (the probes' spread; not a confidence interval, and there is none)",
             f"  memory {data['parts']['memory']:.4g} s, compute {data['parts']['compute']:.4g} s, "
             f"messages {data['parts']['comm']:.4g} s"
             + (f", job launch {data['parts']['launch']:.4g} s" if data["parts"]["launch"] else "")
             + f" before the overlap rule ({conv.overlap} of memory and compute per block); cache rule: {conv.rule}",
             "  levels per process: " + ", ".join(
                 f"{lv.name} {_bytes(lv.bytes)}" for lv in conv.levels if lv.name != "memory") + ", then memory",
             "",
             f"{'block':44s} {'level':>6s} {'pattern':>9s} {'GB/s':>7s} {'mem s':>9s} {'cpu s':>9s} "
             f"{'msg s':>9s} {'share':>6s}"]
    table = data["items"]
    for r in table[:ROWS]:
        lines.append(f"{r['item'][:44]:44s} {r['level']:>6s} {r['pattern']:>9s} "
                     f"{r['bandwidth'] / 1e9:7.2f} {r['memory']:9.3g} {r['compute']:9.3g} {r['comm']:9.3g} "
                     f"{100 * r['share']:5.1f}%" + (f"  {r['source']}" if r["source"] else ""))
    if len(table) > ROWS:
        rest = table[ROWS:]
        lines.append(f"{f'({len(rest)} more)':44s} {'':>6s} {'':>9s} {'':>7s} {sum(r['memory'] for r in rest):9.3g} "
                     f"{sum(r['compute'] for r in rest):9.3g} {sum(r['comm'] for r in rest):9.3g} "
                     f"{100 * sum(r['share'] for r in rest):5.1f}%")
    lines.append("")
    lines.extend(f"note: {note}" for note in conv.notes)
    return "\n".join(lines)


def _bytes(value: float) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value:.0f} B"
