"""What ``perfeq probe`` runs: the working-set sizes, message sizes, process counts and repetitions,
as a list of launches (steps) with the arguments each probe program takes.

Part of perfeq stage 2 (runtime/probes/).  Plain functions of numbers (the last-level cache, the
line, the memory, the cores of a node), so a plan can be checked without running anything.  The
cores of this node are read here too (``node_cpus``): the machine description knows the caches, not
the cores.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    """How much to measure: ``QUICK`` (under a minute on a small machine) or ``FULL``."""

    name: str
    reps: int  # repetitions of every memory and network point
    compute_reps: int
    sizes_per_octave: int  # working sets per doubling, from 4 KiB to 4x the last-level cache
    loads: int  # loads per repetition of read, update and stride (at least one pass)
    chase_loads: int  # dependent loads per repetition of the random chase
    iterations: int  # loop iterations per repetition of a compute kernel
    branch_bytes: int  # the branch kernel's data (fits in the L2 cache, too long to be learnt)
    noise_seconds: float  # seconds of fixed work quanta per repetition of the noise kernel
    pingpong_sizes: tuple[int, ...]
    collective_sizes: tuple[int, ...]
    min_time: float  # seconds each network repetition lasts at least
    all_counts: bool  # contention with 1, 2, 4, ..., all cores (else 1 and all cores)

    def to_json(self) -> dict:
        return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(self).items()}


def _powers(first: int, last: int, factor: int) -> tuple[int, ...]:
    sizes, size = [], first
    while size <= last:
        sizes.append(size)
        size *= factor
    return tuple(sizes)


QUICK = Settings(name="quick", reps=3, compute_reps=5, sizes_per_octave=1, loads=1 << 21, chase_loads=1 << 17,
                 iterations=1 << 21, branch_bytes=1 << 18, noise_seconds=0.3, pingpong_sizes=(0, *_powers(1, 4 << 20, 4)),
                 collective_sizes=(8, 1024, 65536, 1 << 20), min_time=0.001, all_counts=False)
FULL = Settings(name="full", reps=7, compute_reps=11, sizes_per_octave=3, loads=1 << 23, chase_loads=1 << 20,
                iterations=1 << 23, branch_bytes=1 << 18, noise_seconds=1.0, pingpong_sizes=(0, *_powers(1, 4 << 20, 2)),
                collective_sizes=_powers(8, 2 << 20, 4), min_time=0.005, all_counts=True)

NOISE_QUANTUM = 2e-5  # seconds of work per quantum of the noise kernel (interruptions above 1 us stand out)
SMALLEST = 4096  # the smallest working set, bytes
GRAIN = 512  # working sets are multiples of the stride pattern's step (64 doubles)
ALLTOALL_BYTES = 64 << 20  # an alltoall's buffers per process at most (size x processes)


@dataclass(frozen=True)
class Step:
    """One launch of one probe program on ``procs`` processes.

    ``placement`` says where its processes must run: ``node`` (all on one node: memory, compute,
    the ping-pong within a node), ``any`` (as the launcher spreads them: collectives), ``across``
    (two processes on two nodes: the ping-pong across nodes).  ``points`` is how many JSON lines the
    program prints (one per measured point).
    """

    program: str
    procs: int
    args: tuple[str, ...]
    points: int
    placement: str
    what: str


def working_sets(llc_bytes: int, per_octave: int, smallest: int = SMALLEST) -> list[int]:
    """Log-spaced working sets from ``smallest`` to 4x the last-level cache, both included, at least
    ``per_octave`` per doubling, multiples of ``GRAIN``."""
    largest = max(4 * llc_bytes, smallest)
    count = max(1, math.ceil(math.log2(largest / smallest) * per_octave - 1e-9))
    sizes = {smallest * (largest / smallest) ** (k / count) for k in range(count + 1)}
    return sorted({max(GRAIN, round(size / GRAIN) * GRAIN) for size in sizes})


def contention_counts(cores: int, every: bool) -> list[int]:
    """Processes running the memory probe at once: 1, 2, 4, ... and all cores (``every``), else 1
    and all cores."""
    counts = {1, cores}
    if every:
        counts |= set(_powers(2, cores, 2))
    return sorted(counts)


def default_procs(cores: int) -> list[int]:
    """Process counts of the collectives: 2, 4, 8, ... and all cores (none on one core)."""
    return sorted(set(_powers(2, cores, 2)) | ({cores} if cores >= 2 else set()))


def _join(numbers) -> str:
    return ",".join(str(int(n)) for n in numbers)


def plan_steps(settings: Settings, *, llc_bytes: int, line_bytes: int, memory_bytes: int, cores: int,
               procs: list[int], across: bool = False) -> list[Step]:
    """Every launch of a probe run, in the order they run: memory on 1, 2, ... cores, compute, the
    ping-pong within a node (and across nodes when ``across``), the collectives per process count.
    A process's working sets stop where the processes of a step together would need more than half
    the node's memory."""
    steps = []
    for count in contention_counts(cores, settings.all_counts):
        sizes = [size for size in working_sets(llc_bytes, settings.sizes_per_octave) if size * count <= memory_bytes // 2]
        if sizes:
            steps.append(Step("memory", count, (f"sizes={_join(sizes)}", f"reps={settings.reps}",
                                                f"loads={settings.loads}", f"chase={settings.chase_loads}",
                                                f"line={line_bytes}"),
                              4 * len(sizes), "node", f"memory on {count} process{'es' if count > 1 else ''}"))
    steps.append(Step("compute", 1, (f"iterations={settings.iterations}", f"reps={settings.compute_reps}",
                                     f"branch_bytes={settings.branch_bytes}", f"noise_quantum={NOISE_QUANTUM:g}",
                                     f"noise_seconds={settings.noise_seconds:g}"), 10, "node", "compute and noise"))
    network = (f"reps={settings.reps}", f"min_time={settings.min_time:g}")
    pingpong = (f"pingpong={_join(settings.pingpong_sizes)}", *network, "procs=2")
    if procs:
        steps.append(Step("network", 2, pingpong, len(settings.pingpong_sizes), "node", "ping-pong within a node"))
        if across:
            steps.append(Step("network", 2, pingpong, len(settings.pingpong_sizes), "across",
                              "ping-pong across nodes"))
    for count in procs:
        sizes = settings.collective_sizes
        alltoall = [size for size in sizes if size * count <= ALLTOALL_BYTES]
        args = (f"bcast={_join(sizes)}", f"allreduce={_join(s for s in sizes if s >= 8 and s % 8 == 0)}",
                *([f"alltoall={_join(alltoall)}"] if alltoall else []), "barrier=1", *network, f"procs={count}")
        points = len(sizes) + len([s for s in sizes if s >= 8 and s % 8 == 0]) + len(alltoall) + 1
        steps.append(Step("network", count, args, points, "any", f"collectives on {count} processes"))
    return steps


def node_cpus() -> dict:
    """This node's processors as this process may use them: ``cores`` (physical cores, from sysfs
    topology), ``cpus`` (hardware threads) and ``model`` (from /proc/cpuinfo, "" if unknown)."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        allowed = list(range(os.cpu_count() or 1))
    physical = set()
    for cpu in allowed:
        topology = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            physical.add((topology / "physical_package_id").read_text().strip() + ":"
                         + (topology / "core_id").read_text().strip())
        except OSError:
            physical.add(str(cpu))
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.lower().startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    return {"cores": max(1, len(physical)), "cpus": max(1, len(allowed)), "model": model}
