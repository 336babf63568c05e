"""Machine costs a probe file measures, as costs of a machine profile (``perfeq fit --probes``).

Runs on one or two processes of one node cannot identify what a message costs: start-ups and bytes
come and go with the sharing of the node, and a fitted ``bytes`` absorbs the busy cores (tens of ns
per byte on a machine that moves 10 GB/s).  The ping-pong probe measures them directly (Snavely et
al.'s machine profile), so ``perfeq fit --probes probes.json`` takes them from it and fits only the
rest (``fit.fit_machine(fixed=...)``).

* ``startup``: half the round trip of the smallest message (seconds per message on the critical
  path);
* ``bytes``: the slope of half the round trip against the size between the two largest messages
  (seconds per byte, the inverse of the asymptotic bandwidth).

Both from the ping-pong across two nodes when the file has it (``perfeq probe --across-launcher``:
what messages cost at the process counts one predicts for, beyond a node), else from the one within a
node; the cost's ``detail`` names the curve, and ``perfeq predict`` says which it was.

Each value is the probe's median over its repetitions; its standard error is the spread of the
repetitions, (q3 - q1) / 1.349 (the interquartile range of a normal distribution is 1.349 sigma), so
that intervals carry the probes' run-to-run variation, not only the precision of their median; its
interval is the median +- 1.96 of them (95 %, whatever level the fit uses).
"""

from __future__ import annotations

from collections.abc import Callable

from perfeq.errors import UsageError
from perfeq.fitting.convolution.probecosts import ProbeCosts, is_probe_file
from perfeq.fitting.costs import cost_spec
from perfeq.fitting.regression.profile import CostEstimate

IQR_SIGMA = 1.349  # interquartile range of a normal distribution, in standard deviations
Z95 = 1.96  # the 95 % interval of a probed cost: its median +- 1.96 standard errors (normal)
PROBED_COSTS = ("startup", "bytes")  # the costs perfeq fit --probes takes from a probe file
PINGPONGS = {"pingpong_intra": "ping-pong within a node", "pingpong_inter": "ping-pong across two nodes"}


def probed_from(path, say: Callable[[str], None]) -> dict[str, CostEstimate]:
    """The message costs of probe file ``path`` (UsageError when it is not one), each said in one line."""
    if not is_probe_file(path):
        raise UsageError(f"{path}: not a probe file (perfeq probe writes one, format perfeq-probes)")
    fixed = probed_costs(ProbeCosts.load(path))
    for name, cost in fixed.items():
        spec = cost_spec(name)
        say(f"{name} from the probes in {path} ({PINGPONGS.get(cost.detail, cost.detail)}): "
            f"{cost.value / spec.unit_seconds:.4g} "
            f"+- {cost.stderr / spec.unit_seconds:.2g} {spec.display_unit} (not fitted)")
    return fixed


def probed_costs(probes: ProbeCosts) -> dict[str, CostEstimate]:
    """The costs of :data:`PROBED_COSTS` measured by ``probes``, with source ``probe``."""
    inter = probes.results.curve("pingpong_inter")
    across = inter is not None and len(inter.x) >= 2
    curve = inter if across else probes.results.curve("pingpong_intra")
    if curve is None or len(curve.x) < 2:
        raise UsageError(f"{probes.source}: the probe file has no ping-pong curve (it was run on one core): "
                         "message costs cannot be taken from it")
    at = {kind: probes.at(kind) for kind in ("median", "q1", "q3")}
    measure = {"startup": lambda p: p.message(float(curve.x[0]), across)[0],
               "bytes": lambda p: _per_byte(p, curve.x, across)}
    result = {}
    for name in PROBED_COSTS:
        value, low, high = (measure[name](at[kind]) for kind in ("median", "q1", "q3"))
        value, stderr = max(value, 0.0), abs(high - low) / IQR_SIGMA
        result[name] = CostEstimate(value=value, stderr=stderr, ci_low=max(value - Z95 * stderr, 0.0),
                                    ci_high=value + Z95 * stderr, source="probe", detail=curve.name)
    return result


def _per_byte(probes: ProbeCosts, sizes, across: bool) -> float:
    """Seconds per byte: the slope of the message time between the two largest sizes probed."""
    small, large = float(sizes[-2]), float(sizes[-1])
    return (probes.message(large, across)[0] - probes.message(small, across)[0]) / (large - small)
