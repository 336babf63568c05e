"""The file of a probe run: format ``perfeq-probes``, version 1 (docs/probes.md), its one writer and
one reader, and the headline numbers of a run.

Part of perfeq stage 2 (runtime/probes/).  The machine's description, the compiler and launch
command lines, the settings, and every curve with its medians, quartiles, extremes and samples.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from perfeq.errors import UsageError
from perfeq.files import read_json_document, write_atomic
from perfeq.runtime.probes.curves import Curve

FORMAT = "perfeq-probes"
VERSION = 1
NOISE_CURVES = ("noise_rate", "noise_length", "noise_variance")  # the noise kernel's, one point each


@dataclass(frozen=True)
class ProbeResults:
    """A probe run: where and how it was measured, and its curves."""

    created: str
    machine: dict
    toolchain: dict
    settings: dict
    commands: tuple[dict, ...]
    curves: tuple[Curve, ...]
    notes: tuple[str, ...] = field(default=())

    def curve(self, name: str, procs: int | None = None) -> Curve | None:
        """The curve ``name`` (on ``procs`` processes when given; else the first one), or None."""
        return next((c for c in self.curves if c.name == name and (procs is None or c.procs == procs)), None)

    def procs_of(self, name: str) -> list[int]:
        """The process counts for which the file has the curve ``name``."""
        return sorted({c.procs for c in self.curves if c.name == name})

    def to_json(self) -> str:
        data = {"format": FORMAT, "version": VERSION, "created": self.created, "machine": self.machine,
                "toolchain": self.toolchain, "settings": self.settings, "commands": list(self.commands),
                "notes": list(self.notes), "summary": summary(self), "curves": [c.to_json() for c in self.curves]}
        return json.dumps(data, indent=1) + "\n"


def save_probes(path: str | os.PathLike[str], results: ProbeResults) -> Path:
    return write_atomic(path, results.to_json())


def load_probes(path: str | os.PathLike[str]) -> ProbeResults:
    """Read a ``perfeq-probes`` file; one UsageError line naming the file when it is not one."""
    data = read_json_document(path, FORMAT, VERSION, what="perfeq probes file",
                              missing="no such probes file (perfeq probe -o writes one)")
    try:
        curves = tuple(Curve.from_json(curve) for curve in data["curves"])
        return ProbeResults(created=str(data.get("created", "")), machine=dict(data["machine"]),
                            toolchain=dict(data.get("toolchain", {})), settings=dict(data.get("settings", {})),
                            commands=tuple(data.get("commands", [])), curves=curves,
                            notes=tuple(str(n) for n in data.get("notes", [])))
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{path}: not a valid perfeq probes file: {type(exc).__name__}: {exc}") from None


def summary(results: ProbeResults) -> dict:
    """The headline numbers (medians), in SI units; a key is absent when its curve is.

    ``read_first``/``read_last``: read bandwidth of one process at the smallest and largest working
    set; ``read_all_cores_last``: per process with every core reading at once; ``chase_first``/
    ``chase_last``: random-access latency; the compute values; ``noise_rate``, ``noise_length``,
    ``noise_variance``: the interruptions of a process (per second, mean seconds, sum of squares per
    second); ``pingpong_latency``: half a round
    trip at the smallest message within a node; ``pingpong_bandwidth``: the largest median
    bandwidth within a node.
    """
    found: dict[str, float] = {}
    memory = [p for p in results.procs_of("read")]
    for name in ("read", "update", "stride", "chase"):
        curve = results.curve(name, 1)
        if curve:
            found[f"{name}_first"], found[f"{name}_last"] = curve.median[0], curve.median[-1]
            found[f"{name}_first_bytes"], found[f"{name}_last_bytes"] = curve.x[0], curve.x[-1]
    if memory and max(memory) > 1:
        everyone = results.curve("read", max(memory))
        found["read_all_cores_last"], found["all_cores"] = everyone.median[-1], max(memory)
    for name in ("flops_independent", "flops_chained", "int_ops", "divide", "math", "branch_predictable", "branch_random",
                 "branch_difference", *NOISE_CURVES):
        curve = results.curve(name)
        if curve:
            found[name] = curve.median[0]
    pingpong, bandwidth = results.curve("pingpong_intra"), results.curve("pingpong_intra_bandwidth")
    if pingpong:
        found["pingpong_latency"] = pingpong.median[0]
    if bandwidth:
        found["pingpong_bandwidth"] = max(bandwidth.median)
    launch = results.curve("launch")
    if launch:
        found["launch_first"], found["launch_first_procs"] = launch.median[0], launch.x[0]
    return found
