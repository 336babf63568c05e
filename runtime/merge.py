"""Merging the per-rank traces of one run into one trace (what ``perfeq run`` writes).

Part of perfeq stage 2 (runtime/).  Each rank of an instrumented program writes its own trace
(runtime/c/perfeq_rt.c); this joins them, tolerating a rank that crashed, into the merged format
that runtime/trace.py reads (docs/trace.md).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfeq.errors import TraceError
from perfeq.files import write_atomic
from perfeq.runtime.trace import TRACE_FORMAT, TRACE_VERSION, iter_records


@dataclass(frozen=True)
class MergeResult:
    """What :func:`merge_rank_traces` wrote."""

    path: Path
    ranks: tuple[int, ...]
    missing_ranks: tuple[int, ...]
    incomplete_ranks: tuple[int, ...]
    stopped_ranks: tuple[int, ...]

    @property
    def complete(self) -> bool:
        return not self.missing_ranks and not self.incomplete_ranks


def _rank_records(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """Header, body records and footer (None if missing) of one rank's trace, tolerating a cut end."""
    header: dict[str, Any] | None = None
    body: list[dict[str, Any]] = []
    footer: dict[str, Any] | None = None
    for lineno, record in iter_records(path, tolerant=True):
        kind = record["record"]
        if header is None:
            header = record
            if header.get("merged"):
                raise TraceError(f"{path}:{lineno}: already a merged trace")
        elif footer is not None:
            raise TraceError(f"{path}:{lineno}: {kind} record after the footer")
        elif kind == "footer":
            footer = record
        elif kind in ("header", "rank", "rank_end"):
            raise TraceError(f"{path}:{lineno}: unexpected {kind} record in a rank's trace")
        else:
            body.append(record)
    if header is None:
        raise TraceError(f"{path}:1: empty trace: no header")
    return header, body, footer


Section = tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]  # header, body, footer


def merge_rank_traces(rank_paths: Iterable[str | os.PathLike[str]], output: str | os.PathLike[str], *,
                      command: Sequence[str] = (), exit_status: int | None = None) -> MergeResult:
    """Merge the per-rank traces into one trace at ``output``, written atomically.

    The merged trace has one header (``merged: true``, ``nranks``, the command and its exit
    status), then per rank a ``rank`` record (that rank's header), its records tagged with
    ``"rank"``, and a ``rank_end`` record (its footer, ``incomplete`` when it had none); then one
    footer.  Ranks absent from ``rank_paths`` are listed as ``missing_ranks``.
    """
    sections = _sections(rank_paths)
    nranks = max(max(h["nranks"] for h, _, _ in sections.values()), max(sections) + 1)
    missing = tuple(r for r in range(nranks) if r not in sections)
    incomplete = tuple(r for r in sorted(sections) if sections[r][2] is None)
    stopped = tuple(r for r in sorted(sections) if (sections[r][2] or {}).get("stopped"))
    header = _merged_header(sections, nranks, command, exit_status)
    out = Path(output)
    write_atomic(out, _merged_lines(header, sections, missing, incomplete, stopped))
    return MergeResult(out, tuple(sorted(sections)), missing, incomplete, stopped)


def _sections(rank_paths: Iterable[str | os.PathLike[str]]) -> dict[int, Section]:
    """Each rank's header, body and footer, by rank; one error line for a bad or repeated rank."""
    sections: dict[int, Section] = {}
    for path in rank_paths:
        header, body, footer = _rank_records(Path(path))
        rank = header.get("rank", 0)
        if type(rank) is not int or rank < 0:
            raise TraceError(f"{path}:1: bad rank {rank!r} in the header")
        if rank in sections:
            raise TraceError(f"{path}:1: a second trace of rank {rank}")
        sections[rank] = (header, body, footer)
    if not sections:
        raise TraceError("no rank traces to merge")
    return sections


def _merged_header(sections: dict[int, Section], nranks: int, command: Sequence[str],
                   exit_status: int | None) -> dict[str, Any]:
    first = sections[min(sections)][0]
    params: dict[str, Any] = {}
    for rank in sorted(sections):
        for record in sections[rank][1]:
            if record["record"] == "params" and not params:
                params = dict(record["params"])
    return {
        "record": "header", "format": TRACE_FORMAT, "version": TRACE_VERSION, "merged": True,
        "program": first.get("program", ""), "argv": first.get("argv", []), "nranks": nranks,
        "ranks": sorted(sections), "command": list(command), "exit_status": exit_status, "params": params,
    }


def _merged_lines(header: dict[str, Any], sections: dict[int, Section], missing: tuple[int, ...],
                  incomplete: tuple[int, ...], stopped: tuple[int, ...]) -> Iterator[str]:
    """The merged trace's lines: its header, each rank's section, and a footer that counts them."""
    records = 1
    totals = {"errors": 0, "dropped": 0}
    yield _dump(header)
    for rank in sorted(sections):
        rank_header, body, footer = sections[rank]
        rank_record = {"record": "rank", "rank": rank}
        rank_record.update({k: v for k, v in rank_header.items() if k not in ("record", "format", "version", "rank")})
        yield _dump(rank_record)
        for record in body:
            yield _dump({**record, "rank": rank})
        end: dict[str, Any] = {"record": "rank_end", "rank": rank, "incomplete": footer is None}
        if footer is not None:
            end.update({k: v for k, v in footer.items() if k != "record"})
            for key in totals:
                totals[key] += int(footer.get(key, 0))
        yield _dump(end)
        records += len(body) + 2
    yield _dump({"record": "footer", "records": records, "errors": totals["errors"],
                 "dropped": totals["dropped"], "stopped": bool(stopped),
                 "incomplete": bool(missing or incomplete), "missing_ranks": list(missing),
                 "incomplete_ranks": list(incomplete)})


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"
