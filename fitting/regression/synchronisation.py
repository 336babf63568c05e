"""The synchronisation term of a prediction: the wait for the slowest rank (Fleischmann et al. 1994).

perfeq's time equation gives every rank its mean time.  At each synchronising MPI call the ranks
wait for the slowest of them, and with random compute times the expected maximum of P times
exceeds their mean even when the work is balanced.  For every synchronising call site the model
keeps (symbolic/sync.py) the compute bursts the training runs measured before the call; here they
become, at the predicted P:

    wait per call    E[max of P bursts] - E[burst]        (global: a collective)
                     ring of P neighbours, section 5       (local: a blocking point-to-point call)
    term             calls on the critical path x wait per call, with its variance

The bursts' distribution is fitted to the measured moments with fitting/variability's
``fit_moments`` (coefficient of variation and minimum of the reference training trace) and scaled
to the predicted mean: the compute time of a rank at the prediction, split among the sites as the
reference trace's bursts were.  The assumptions (independent, identically distributed bursts) are
said in every term; docs/variability.md discusses them.

With the noise the probe measured (:class:`Noise`, ``perfeq predict --sync --noise probes.json``) a
burst's variance is split instead: the process's interruptions add ``lambda E[L^2]`` per second of
burst (independent interruptions: a compound Poisson process), which grows like the burst, not like
its square; what the training bursts varied beyond that is the work's spread and keeps its coefficient
of variation.  Training bursts of microseconds vary by the machine's noise, and scaling that spread
with a constant coefficient of variation to bursts a hundred times longer made the term 20-30 times
the measured wait (docs/variability.md, section 14).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from scipy import stats

from perfeq.errors import UsageError
from perfeq.fitting.variability.distributions import TaskTime, fit_moments
from perfeq.fitting.variability.extremes import MASSIVE, expected_maximum
from perfeq.fitting.variability.scheduling import dynamic_schedule
from perfeq.fitting.variability.taskgraphs import extrapolate, ring
from perfeq.runtime.probes.document import NOISE_CURVES, load_probes, summary

LOCAL_DRAWS = 2000  # Monte Carlo draws of a ring of neighbours (local synchronisation)
MAX_RING_STAGES = 10**9

ASSUMPTIONS = (
    "the compute bursts of the ranks between synchronisations are independent and identically distributed "
    "(no correlated noise, no imbalance by design: the slowest rank's counts carry that)",
    "each burst keeps the coefficient of variation and minimum-to-mean ratio measured in the reference "
    "training trace, scaled to the predicted compute time",
    "a blocking point-to-point call waits for neighbours on a ring (a 1-D halo exchange, section 5); "
    "a collective for all P ranks",
)


NOISE_ASSUMPTIONS = (
    ASSUMPTIONS[0],
    "each burst's variance is the work's, with the coefficient of variation the reference training trace "
    "measured beyond the noise, plus the process's interruptions the noise probe measured (lambda E[L^2] per "
    "second of burst, independent between ranks and over time)",
    ASSUMPTIONS[2],
)


@dataclass(frozen=True)
class Noise:
    """A process's interruptions as the noise probe measured them (perfeq probe, docs/probes.md): per
    second, their mean length (seconds), and the sum of their squared lengths per second (seconds):
    the variance a burst gains per second of its length."""

    rate: float
    length: float
    variance: float
    source: str

    def to_dict(self) -> dict:
        return asdict(self)


def noise_from_probes(path) -> Noise:
    """The noise curves of probe file ``path`` (medians); one UsageError line when it has none."""
    found = summary(load_probes(path))
    if not all(name in found for name in NOISE_CURVES):
        raise UsageError(f"{path}: the probe file has no noise curves (written by an older perfeq probe): "
                         "probe again to price the noise")
    rate, length, variance = (found[name] for name in NOISE_CURVES)
    return Noise(rate=rate, length=length, variance=variance, source=str(path))


@dataclass(frozen=True)
class SiteTerm:
    """The wait at one synchronising call site."""

    label: str
    call: str
    synchronisation: str  # "global" or "local"
    calls: float  # calls per rank on the critical path
    mean_burst: float  # seconds, scaled to the prediction
    cv: float  # coefficient of variation of the bursts at the prediction (within ranks)
    wait: float  # expected wait per call, seconds
    seconds: float  # calls x wait
    variance: float  # run-to-run variance of those seconds
    estimation_stderr: float  # from estimating the spread from a finite number of bursts
    method: str


@dataclass(frozen=True)
class SyncTerm:
    """The synchronisation term at one P: the sum over the sites, its variance and interval."""

    procs: int
    seconds: float
    variance: float
    stderr: float
    interval: tuple[float, float]
    level: float
    reference_trace: str
    sites: tuple[SiteTerm, ...]
    skipped: tuple[str, ...]
    assumptions: tuple[str, ...] = ASSUMPTIONS
    warnings: tuple[str, ...] = ()
    noise: dict | None = None  # the probe's noise (Noise.to_dict) when it split the bursts' variance

    @property
    def estimation_stderr(self) -> float:
        return math.sqrt(max(self.stderr**2 - self.variance, 0.0))

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Bursts:
    """A site's bursts in one training run, pooled over the ranks: mean, the variance within ranks
    (the ranks' different means are imbalance, which the counts carry), minimum, maximum, degrees of
    freedom of the variance, and the mean total per rank."""

    mean: float
    variance: float
    minimum: float
    maximum: float
    dof: int
    per_rank_total: float


def pooled(moments) -> Bursts | None:
    """:class:`Bursts` from per-rank moments ``(n, sum, sum2, min, max, sdiff2)``; None without bursts.

    The variance within ranks is von Neumann's, from the squared differences of consecutive bursts
    (sdiff2 / 2 per difference), when the trace has them: a trend over the calls (a Gaussian
    elimination's shrinking steps, the same on every rank, which no rank waits for) barely enters
    it, random spread does fully.  Without them (sdiff2 < 0), the plain variance about each rank's mean.

    Each rank's largest burst is left out of the spread: one of its squared differences, taken as
    (max - mean)^2 (a cold start is the first burst and has only one), and at most the plain variance
    of the other bursts; a rank with fewer than 3 bursts gives none.  In a short training run one cold
    start (first touches of the arrays) or one interruption of a rank sets the spread of tens of
    bursts otherwise, and scaled to the prediction it became a wait 20-30 times the measured one
    (docs/variability.md, section 14).  For a spread that is the work's, one burst in n changes the
    estimate by about 1/n.
    """
    moments = [m for m in moments if m[0] > 0]
    if not moments:
        return None
    count = sum(m[0] for m in moments)
    trimmed = [m for m in moments if m[0] >= 3]
    dof = sum(m[0] - 2 for m in trimmed)
    within = 0.0
    for n, total, total2, _, largest, *rest in trimmed:
        mean, kept, kept2 = total / n, total - largest, total2 - largest * largest
        plain = max(kept2 - kept * kept / (n - 1), 0.0)  # about the mean of the others (a trend enters)
        if rest and rest[0] >= 0:  # one squared difference of the largest off (an inner one has two)
            within += min(max(rest[0] - (largest - mean) ** 2, 0.0) / 2.0, plain)
        else:
            within += plain
    return Bursts(mean=sum(m[1] for m in moments) / count, variance=within / dof if dof > 0 else 0.0,
                  minimum=min(m[3] for m in moments), maximum=max(m[4] for m in moments), dof=dof,
                  per_rank_total=sum(m[1] for m in moments) / len(moments))


def reference_trace(model) -> int | None:
    """The training trace the bursts are taken from: the one with the most processes (the waits at
    neighbour exchanges only happen there), then the most compute measured; None without times."""
    totals: dict[int, list[float]] = {}
    for site in model.sync:
        for run in site.runs:
            bursts = pooled(run.burst)
            if bursts is not None:
                entry = totals.setdefault(run.trace, [run.procs, 0.0])
                entry[1] += bursts.per_rank_total
    if not totals:
        return None
    return max(totals, key=lambda trace: (totals[trace][0], totals[trace][1], -trace))


def reference_compute(model, trace: int) -> float:
    """Seconds of compute per rank the reference trace measured before its synchronising calls."""
    return sum(b.per_rank_total for b in _site_bursts(model, trace).values())


def _site_bursts(model, trace: int) -> dict[int, Bursts]:
    found = {}
    for index, site in enumerate(model.sync):
        for run in site.runs:
            if run.trace == trace:
                bursts = pooled(run.burst)
                if bursts is not None:
                    found[index] = bursts
    return found


@dataclass(frozen=True)
class ScaledSite:
    """One site at the prediction: its calls and the fitted distribution of one burst."""

    index: int
    calls: float
    task: TaskTime
    mean: float
    cv: float
    dof: int


def scaled_variance(bursts: Bursts, mean: float, noise: Noise | None) -> float:
    """The variance of a burst of ``mean`` seconds at the prediction, from the reference trace's
    ``bursts``: their coefficient of variation kept (no noise model), or the spread beyond the noise
    keeping its coefficient of variation plus the noise of a burst that long."""
    if bursts.mean <= 0:
        return 0.0
    if noise is None:
        return bursts.variance / bursts.mean**2 * mean**2
    # too few bursts to measure a spread (dof < 2): the noise's alone
    work = max(bursts.variance - noise.variance * bursts.mean, 0.0) if bursts.dof >= 2 else 0.0
    return work / bursts.mean**2 * mean**2 + noise.variance * mean


MAX_STAGES = 64  # the deterministic part leaves at least a random part of this many Erlang stages' spread


def noisy_minimum(mean: float, variance: float, noise: Noise) -> float:
    """The deterministic part of a burst of ``mean`` seconds and ``variance`` with the probe's noise:
    the mean less the time interruptions take from a burst that long (``rate x mean x length``) and
    two standard deviations of the rest of the spread, so that rare interruptions give the right-skewed
    random part they are (a hyperexponential when a burst is seldom interrupted), but never so close
    to the mean that the random part needs more than MAX_STAGES Erlang stages."""
    noise_variance = noise.variance * mean
    lost = min(noise.rate * mean * noise.length, mean)
    random_part = lost + 2.0 * math.sqrt(max(variance - noise_variance, 0.0))
    random_part = min(random_part, math.sqrt(MAX_STAGES * variance), mean)
    return mean - random_part


def scaled_sites(model, values, procs: int, threads: int, compute_seconds: float, noise: Noise | None = None
                 ) -> tuple[list[ScaledSite], list[str], str]:
    """The sites with their burst distributions scaled so that the bursts of a rank add up to
    ``compute_seconds`` in the shares the reference trace measured (their variance split by
    ``noise`` when given, :func:`scaled_variance`); the sites left out and why; the reference
    trace's name."""
    trace = reference_trace(model)
    if trace is None:
        return [], ["the model's traces carry no times of synchronising calls (trace version 1, or "
                    "PERFEQ_NO_TIMES): rebuild the model from traces of this perfeq"], ""
    name = model.traces[trace] if trace < len(model.traces) else str(trace)
    bursts = _site_bursts(model, trace)
    total = sum(b.per_rank_total for b in bursts.values())
    sites, skipped = [], []
    for index, site in enumerate(model.sync):
        b = bursts.get(index)
        if b is None:
            skipped.append(f"{site.label}: not called with times in the reference trace")
            continue
        calls = model.site_calls(index, values, procs, threads)
        if not calls > 0:
            continue
        if b.dof < 2 and noise is None:
            skipped.append(f"{site.label}: too few calls per rank to measure a spread (3 bursts per rank at "
                           "least, the largest left out)")
            continue
        mean = b.per_rank_total / total * compute_seconds / calls if total > 0 else 0.0
        if not mean > 0:
            continue
        variance = scaled_variance(b, mean, noise)
        cv = math.sqrt(variance) / mean
        if noise is None:  # the training bursts' shape: their minimum-to-mean ratio
            minimum = b.minimum / b.mean * mean if 0 < b.minimum < b.mean else None
        else:
            minimum = noisy_minimum(mean, variance, noise)
        task = fit_moments(mean, variance, minimum=minimum if cv > 0 else None)
        sites.append(ScaledSite(index, calls, task, mean, cv, b.dof))
    return sites, skipped, name


def spread_error(site: ScaledSite) -> float:
    """Relative standard error of the wait from estimating the bursts' spread: the wait of a
    location-scale family is proportional to sigma, and sigma estimated from dof squared differences
    has a relative error of about sqrt((kurtosis - 1) / (4 n_eff)), n_eff = 2/3 dof for von Neumann's
    estimator (its efficiency for normal data); the kurtosis is the fitted distribution's."""
    task = site.task
    variance = task.variance
    if variance <= 0 or site.dof < 1:
        return 0.0
    mean = task.mean
    central = (task.moment(4) - 4 * mean * task.moment(3) + 6 * mean**2 * task.moment(2) - 3 * mean**4)
    kurtosis = max(central / variance**2, 1.0)
    return math.sqrt((kurtosis - 1.0) * 3.0 / (8.0 * site.dof))


def site_wait(site: ScaledSite, synchronisation: str, procs: int) -> tuple[float, float, str, tuple[str, ...]]:
    """(total wait over the site's calls, its variance, the method, warnings) at ``procs`` ranks."""
    if procs < 2 or site.task.variance <= 0:
        return 0.0, 0.0, "no spread" if procs >= 2 else "one rank", ()
    calls = site.calls
    if synchronisation == "local" and procs >= 3:
        stages = max(1, min(int(round(calls)), MAX_RING_STAGES))
        result = extrapolate(ring(procs), site.task, stages, draws=LOCAL_DRAWS)
        scale = calls / stages
        return ((result.mean - stages * site.mean) * scale, result.variance * scale,
                f"ring of {procs} neighbours, {result.simulated} stages simulated (section 5)", ())
    maximum = expected_maximum(site.task, procs)
    warnings = ()
    if maximum.warnings:  # the paper's warning (section 4.1.2), said for a program rather than --dist
        warnings = (f"P > {MASSIVE} with bursts fitted without an upper limit: the expected maximum keeps "
                    "growing like ln P; real bursts have one (the largest measured is in the model), and a "
                    "distribution truncated there gives a smaller wait for P >> 100 (section 4.1.2)",)
    return (calls * (maximum.mean - site.mean), calls * maximum.variance,
            f"exact maximum of {procs} bursts (section 4.1)", warnings)


def synchronisation_term(model, values, procs: int, threads: int, compute_seconds: float, *,
                         level: float = 0.95, noise: Noise | None = None) -> SyncTerm | None:
    """The synchronisation term at ``values``, P, T for a rank computing ``compute_seconds`` between
    its synchronising calls (the bursts' variance split by the probe's ``noise`` when given); None
    when the model has no synchronising call sites."""
    if not model.sync:
        return None
    sites, skipped, reference = scaled_sites(model, values, procs, threads, compute_seconds, noise)
    terms, notes = [], []
    for scaled in sites:
        site = model.sync[scaled.index]
        seconds, variance, method, warnings = site_wait(scaled, site.synchronisation, procs)
        notes.extend(warning for warning in warnings if warning not in notes)
        terms.append(SiteTerm(site.label, site.call, site.synchronisation, scaled.calls, scaled.mean, scaled.cv,
                              seconds / scaled.calls, seconds, variance, abs(seconds) * spread_error(scaled),
                              method))
    seconds = sum(term.seconds for term in terms)
    variance = sum(term.variance for term in terms)
    stderr = math.sqrt(variance + sum(term.estimation_stderr**2 for term in terms))
    quantile = float(stats.norm.ppf(0.5 + level / 2.0))
    interval = (max(seconds - quantile * stderr, 0.0), seconds + quantile * stderr)
    return SyncTerm(procs=procs, seconds=seconds, variance=variance, stderr=stderr, interval=interval, level=level,
                    reference_trace=reference, sites=tuple(terms), skipped=tuple(skipped),
                    assumptions=ASSUMPTIONS if noise is None else NOISE_ASSUMPTIONS, warnings=tuple(notes),
                    noise=None if noise is None else noise.to_dict())


def dynamic_wait(site: ScaledSite, procs: int, pieces: int) -> float:
    """The wait per call if each rank's burst were cut into ``pieces`` tasks handed out to whichever
    of the ``procs`` ranks is free (dynamic scheduling, section 4.2.2): the makespan of pieces x P
    tasks minus the mean burst."""
    if procs < 2 or site.task.variance <= 0:
        return 0.0
    piece = fit_moments(site.mean / pieces, site.task.variance / pieces)
    return dynamic_schedule(piece, pieces * procs, procs).mean - site.mean
