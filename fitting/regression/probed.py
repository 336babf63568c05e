"""Machine costs a probe file measures, as costs of a machine profile (``perfeq fit --probes``).

Runs on one or two processes of one node cannot identify what a message costs: start-ups and bytes
come and go with the sharing of the node, and a fitted ``bytes`` absorbs the busy cores (tens of ns
per byte on a machine that moves 10 GB/s).  The ping-pong probe measures them directly (Snavely et
al.'s machine profile), so ``perfeq fit --probes probes.json`` takes them from it and fits only the
rest (``fit.fit_machine(fixed=...)``).

* ``startup``: half the round trip of the smallest message (seconds per message on the critical
  path);
* ``bytes``: the slope of half the round trip against the size between the smallest and the
  largest message (seconds per byte, near the inverse of the asymptotic bandwidth: the largest
  message's time is almost all bytes).  Between the two largest sizes, as before, a loaded machine
  made the slope 0 (the largest message's median no slower than the one before it).

* ``mem``: a cache line from memory beyond the same line from L1, the memory probe's read curve on
  one process at its largest working set (beyond the last-level cache) against its smallest:
  line / rate(largest) - line / rate(smallest).  Calibration runs whose working sets stay in the
  caches (the catalog's sizes) count no such lines and cannot price them; the fitted loads and stores
  price the in-cache part of the same accesses, so the probe gives only the excess.  Kernels pay
  differently for the same lines (one stream or several, loads overlapping memory or not): the
  ``update`` curve's price per line moved (a line in or out per 64 of its bytes) differs from the
  read curve's, and half that difference joins the standard error in quadrature, so that a
  prediction whose time is mostly memory traffic carries how far another kernel's price would move it.

The message costs from the ping-pong across two nodes when the file has it (``perfeq probe --across-launcher``:
what messages cost at the process counts one predicts for, beyond a node), else from the one within a
node; the cost's ``detail`` names the curve, and ``perfeq predict`` says which it was.

Each value is the probe's median over its repetitions; its standard error is the spread of the
repetitions, (q3 - q1) / 1.349 (the interquartile range of a normal distribution is 1.349 sigma), so
that intervals carry the probes' run-to-run variation, not only the precision of their median; its
interval is the median +- 1.96 of them (95 %, whatever level the fit uses).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from perfeq.errors import UsageError
from perfeq.fitting.convolution.probecosts import ProbeCosts, is_probe_file
from perfeq.fitting.costs import cost_spec
from perfeq.fitting.regression.profile import CostEstimate

IQR_SIGMA = 1.349  # interquartile range of a normal distribution, in standard deviations
Z95 = 1.96  # the 95 % interval of a probed cost: its median +- 1.96 standard errors (normal)
PROBED_COSTS = ("startup", "bytes", "mem")  # the costs perfeq fit --probes takes from a probe file
MEMORY_CURVE = "read"  # the memory probe's curve that prices a line from memory
KERNEL_CURVE = "update"  # a second kernel's price per line: half the two's difference joins mem's stderr
PINGPONGS = {"pingpong_intra": "ping-pong within a node", "pingpong_inter": "ping-pong across two nodes"}


def probed_from(path, say: Callable[[str], None], counted: set[str] | None = None) -> dict[str, CostEstimate]:
    """The costs probe file ``path`` measures (UsageError when it is not one), each said in one line.
    ``counted``: the runs' count columns; ``mem`` is left out, said, when they lack it (a runs CSV
    written before perfeq counted lines from memory: its runs' memory time is not known)."""
    if not is_probe_file(path):
        raise UsageError(f"{path}: not a probe file (perfeq probe writes one, format perfeq-probes)")
    fixed = probed_costs(ProbeCosts.load(path))
    if counted is not None and "mem" in fixed and "mem" not in counted:
        del fixed["mem"]
        say("mem not taken from the probes: the runs have no 'mem' column (written before perfeq counted "
            "lines from memory); calibrate again or recount them (benchmarks/recount_runs.py) to price it")
    for name, cost in fixed.items():
        spec = cost_spec(name)
        source = PINGPONGS.get(cost.detail) or f"{cost.detail} curve, largest working set beyond the smallest"
        say(f"{name} from the probes in {path} ({source}): "
            f"{cost.value / spec.unit_seconds:.4g} "
            f"+- {cost.stderr / spec.unit_seconds:.2g} {spec.display_unit} (not fitted)")
    return fixed


def probed_costs(probes: ProbeCosts) -> dict[str, CostEstimate]:
    """The costs of :data:`PROBED_COSTS` measured by ``probes``, with source ``probe`` (``mem`` only
    when the file has the memory probe's read curve)."""
    inter = probes.results.curve("pingpong_inter")
    across = inter is not None and len(inter.x) >= 2
    curve = inter if across else probes.results.curve("pingpong_intra")
    if curve is None or len(curve.x) < 2:
        raise UsageError(f"{probes.source}: the probe file has no ping-pong curve (it was run on one core): "
                         "message costs cannot be taken from it")
    at = {kind: probes.at(kind) for kind in ("median", "q1", "q3")}
    measure = {"startup": (lambda p: p.message(float(curve.x[0]), across)[0], curve.name),
               "bytes": (lambda p: _per_byte(p, curve.x, across), curve.name)}
    if _has_curve(probes, MEMORY_CURVE):
        measure["mem"] = (_memory_line, MEMORY_CURVE)
    result = {}
    for name, (how, detail) in measure.items():
        value, low, high = (how(at[kind]) for kind in ("median", "q1", "q3"))
        value, stderr = max(value, 0.0), abs(high - low) / IQR_SIGMA
        if name == "mem" and _has_curve(probes, KERNEL_CURVE):  # what the kernel pays: its own uncertainty
            stderr = math.hypot(stderr, abs(value - _memory_line(at["median"], KERNEL_CURVE)) / 2)
        result[name] = CostEstimate(value=value, stderr=stderr, ci_low=max(value - Z95 * stderr, 0.0),
                                    ci_high=value + Z95 * stderr, source="probe", detail=detail)
    return result


def _has_curve(probes: ProbeCosts, name: str) -> bool:
    found = probes.results.curve(name)
    return found is not None and len(found.x) >= 2


def _memory_line(probes: ProbeCosts, curve_name: str = MEMORY_CURVE) -> float:
    """Seconds a line from memory costs beyond the same line from L1, by one memory curve (one
    process) at its largest working set against its smallest: a line of the curve's bytes per line
    moved (``read``: a line read; ``update``: a line read or written back, half an element's 16 B)."""
    curve = probes.memory_curve(curve_name, 1)
    line = float(probes.machine.get("line_bytes", 64))
    small, large = (float(probes.memory_rate(curve_name, 1, x)) for x in (curve.x[0], curve.x[-1]))
    return line / large - line / small


def _per_byte(probes: ProbeCosts, sizes, across: bool) -> float:
    """Seconds per byte: the slope of the message time between the smallest and largest sizes probed."""
    small, large = float(sizes[0]), float(sizes[-1])
    return (probes.message(large, across)[0] - probes.message(small, across)[0]) / (large - small)
