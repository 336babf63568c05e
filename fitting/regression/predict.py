"""Predicted run time from counts and a machine profile, with intervals and a breakdown by cost and block.

Last step of the pipeline: counts chi(N, P) from the symbolic stage times the costs beta of a
MachineProfile (profile.py).  ``perfeq predict`` will call :func:`predict` with the model's counts.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from perfeq.errors import FitError
from perfeq.fitting.costs import COSTS, INTERCEPT, MESSAGE_COSTS
from perfeq.fitting.regression.profile import MachineProfile, error_text
from perfeq.fitting.regression.synchronisation import synchronisation_term

DOMINANT_SHARE = 0.10  # a cost is "dominant" when it makes up at least this share of the predicted time
NO_INTERVALS = "no intervals: the profile's costs were given by hand (source 'manual'), not fitted"


@dataclass(frozen=True)
class Contribution:
    """Seconds a cost or a block adds to the predicted time, its share of it in percent, and the
    standard error of those seconds from the covariance of the costs (None for a manual profile):
    for cost k, x_k SE(beta_k); for a block with counts x_b, sqrt(x_b' C x_b)."""

    name: str
    seconds: float
    percent: float
    stderr: float | None = None
    source: str | None = None  # a cost's: where its value comes from (fit, manual, probe); None for a block


@dataclass(frozen=True)
class Prediction:
    """A predicted run time with its uncertainty.

    ``mean_interval`` is the confidence interval of the expected time (uncertainty of the costs only);
    ``prediction_interval`` is where a single new run is expected to fall (adds the run-to-run error,
    and for an application the fit never saw the between-application error ``between_app_sigma``;
    ``prediction_note`` says which).  Both are None for a manual profile; ``intervals_note`` then
    says why.
    """

    time_s: float
    level: float
    mean_interval: tuple[float, float] | None
    prediction_interval: tuple[float, float] | None
    mean_stderr: float | None
    run_stderr: float | None
    df_resid: int | None
    contributions: tuple[Contribution, ...]
    blocks: tuple[Contribution, ...] | None
    extrapolation: str | None  # warning when dominant counts lie far beyond the calibration runs
    warnings: tuple[str, ...]
    intervals_note: str | None
    profile_source: str
    weighting: str | None
    between_app_sigma: float | None = None  # added to the prediction interval (profile's sigma unit)
    prediction_df: float | None = None  # degrees of freedom of the prediction interval's t quantile
    prediction_note: str | None = None  # what the prediction interval holds
    # shares of the variance of one run: the costs' uncertainty at these counts, the fit's run-to-run
    # error, the between-application error (None for a manual profile)
    variance_shares: dict[str, float] | None = None
    # counts the profile has no cost for, priced at 0 s: cost -> the slowest rank's count (messages on
    # the critical path under "startup", bytes under "bytes")
    unpriced: dict[str, float] | None = None
    edits: tuple[str, ...] = ()  # the what-if edits of the profile's costs (perfeq predict --set), said
    # the synchronisation term (fitting/regression/synchronisation.py), included in time_s and in the
    # "sync" contribution; None when the model has no synchronising call sites
    synchronisation: dict | None = None

    def to_dict(self) -> dict:
        """JSON-ready form (tuples become lists)."""
        return asdict(self)


# The interval fields of a Prediction from a profile without statistics (a manual one).
_MANUAL_INTERVALS: dict[str, Any] = dict(
    mean_interval=None,
    prediction_interval=None,
    mean_stderr=None,
    run_stderr=None,
    df_resid=None,
    intervals_note=NO_INTERVALS,
    between_app_sigma=None,
    prediction_df=None,
    prediction_note=None,
)


def predict(
    profile: MachineProfile,
    counts: Mapping[str, float],
    blocks: Mapping[str, Mapping[str, float]] | None = None,
    level: float = 0.95,
    *,
    extrapolation_factor: float = 10.0,
    application: str | None = None,
    digest: str = "",
    procs: int | None = None,
    threads: int | None = None,
    all_counts: Mapping[str, float] | None = None,
) -> Prediction:
    """Predict the run time for ``counts`` on the machine described by ``profile``.

    Parameters
    ----------
    profile : MachineProfile
        Fitted (intervals available) or manual (point prediction only).
    counts : mapping of str to float
        Whole-program count per cost (``ops``, ``startup``, ...); every cost the profile prices must be
        given.  ``const`` is implicit (one per run).  Counts for costs the profile lacks are ignored
        with a warning when non-zero.
    blocks : mapping of block name to counts, optional
        Per-basic-block counts; each block's time is reported (missing counts in a block are 0).
    level : float
        Confidence level of both intervals (t distribution with the fit's residual degrees of freedom).
    extrapolation_factor : float
        Warn when a dominant count exceeds this multiple of its largest calibration value.
    application, digest : str, optional
        Which program is predicted.  Unless it is one of the applications the profile was fitted on,
        it is a new application, and the prediction interval adds the profile's between-application
        error (when the profile has one).  ``digest`` (the model's ``program_digest``) decides by
        content, whatever the file is called, when the profile's runs carry digests; ``application``,
        a name the user vouches for, decides by name otherwise (see :func:`fitted_application`).
    procs, threads, all_counts : optional
        Where it is made and every count there: the warnings then say where it leaves the calibrated
        box (:func:`calibration_warnings`).  The intervals are :func:`_intervals`' (none if manual).
    """
    if not 0.0 < level < 1.0:
        raise FitError(f"confidence level {level} is not between 0 and 1 (e.g. 0.95)")
    notes = _unpriced(profile, counts, "counts") + calibration_warnings(profile, procs, threads, all_counts)
    if INTERCEPT in profile.costs and counts.get(INTERCEPT, 1.0) == 0.0:
        notes.append(f"'{INTERCEPT}' ({profile.costs[INTERCEPT].value:.3g} s per run, the calibration runs' launch "
                     "with mpiexec and MPI start-up) is not charged: the program does not initialise MPI")
    unpriced = unpriced_messages(profile, all_counts or counts)
    x = count_vector(profile, counts)
    parts = profile.beta * x
    time_s = float(parts.sum())
    cov = profile.covariance_matrix()
    contributions = tuple(
        Contribution(name, float(seconds), _percent(seconds, time_s),
                     None if cov is None else float(abs(x_k) * np.sqrt(max(cov[k, k], 0.0))),
                     profile.cost_source(name))
        for k, (name, seconds, x_k) in enumerate(zip(profile.names, parts, x, strict=True)))
    charged = float(parts[profile.names.index(INTERCEPT)]) if INTERCEPT in profile.names else 0.0
    block_parts = None if blocks is None else _blocks(profile, blocks, time_s, time_s - charged, notes, cov)
    if time_s <= 0:
        notes.append(f"predicted time {time_s:.3g} s is not positive: check the profile's costs and the counts")
    fitted = fitted_application(profile, application, digest)
    intervals = _intervals(profile, x, time_s, level, fitted) if profile.has_intervals else _MANUAL_INTERVALS
    extrapolation = _extrapolation(profile, dict(zip(profile.names, x, strict=True)), contributions, time_s,
                                   extrapolation_factor)
    return Prediction(time_s=time_s, level=level, contributions=contributions, blocks=block_parts,
                      extrapolation=extrapolation, warnings=tuple(notes), profile_source=profile.source,
                      weighting=profile.weighting, unpriced=unpriced or None, **intervals)


def _intervals(
    profile: MachineProfile, x: np.ndarray, time_s: float, level: float, application: str | None
) -> dict[str, Any]:
    """The interval fields of a Prediction for counts ``x`` predicted at ``time_s`` (fitted profiles).

    With x the counts and C the covariance of the costs, Var(mean) = x' C x.  A single run adds the
    fit's error variance: sigma^2 under ``none`` weighting; under ``relative`` weighting (WLS with
    weights 1/t^2) the error variance of a run is sigma^2 t^2, so with the unknown t replaced by the
    prediction, Var(run) = x' C x + sigma^2 t_hat^2 (sigma is then a relative error).

    A new application carries a bias of its own that the fit's residuals do not show; the profile's
    between-application error tau (estimated by leaving each calibration application out, see
    ``fit.between_application_error``) adds tau^2 t_hat^2 (tau^2 under ``none``) to Var(run).  The t
    quantile of the prediction interval then has Welch-Satterthwaite degrees of freedom
    (a + c)^2 / (a^2 / df_resid + c^2 / df_tau), a = x' C x + sigma^2 t_hat^2 and c the added term,
    since tau^2 rests on only as many applications as were fitted.  The confidence interval of the
    mean is unchanged.
    """
    cov = profile.covariance_matrix()
    mean_var = max(float(x @ cov @ x), 0.0)
    unit = time_s**2 if profile.weighting == "relative" else 1.0
    within = mean_var + profile.sigma**2 * unit
    tau, kind = _between_app(profile, application)
    added = 0.0 if tau is None else tau**2 * unit
    mean_se, run_se = math.sqrt(mean_var), math.sqrt(within + added)
    q = float(stats.t.ppf(0.5 + level / 2.0, profile.df_resid))
    run_df = float(profile.df_resid)
    if added > 0:
        run_df = (within + added) ** 2 / (
            within**2 / profile.df_resid + added**2 / profile.between_app.df
        )
    q_run = float(stats.t.ppf(0.5 + level / 2.0, run_df))
    if profile.weighting == "relative" and time_s > 0:
        # a relative error model is multiplicative: the interval is symmetric in log t, so it
        # agrees with t (1 +- q s) to first order and never reaches below zero
        mean_interval = _log_interval(time_s, q * mean_se / time_s)
        prediction_interval = _log_interval(time_s, q_run * run_se / time_s)
    else:
        mean_interval = (time_s - q * mean_se, time_s + q * mean_se)
        prediction_interval = (time_s - q_run * run_se, time_s + q_run * run_se)
    total = within + added
    shares = None if total <= 0 else {"costs": mean_var / total, "runs": (within - mean_var) / total,
                                       "applications": added / total}
    return dict(
        variance_shares=shares,
        mean_interval=mean_interval,
        prediction_interval=prediction_interval,
        mean_stderr=mean_se,
        run_stderr=run_se,
        df_resid=profile.df_resid,
        intervals_note=None,
        between_app_sigma=tau,
        prediction_df=run_df,
        prediction_note=kind,
    )


def fitted_application(profile: MachineProfile, application: str | None, digest: str = "") -> str | None:
    """The fitted application the program predicted is, or None for a program the fit never saw.

    By content first: a program whose ``digest`` is that of a fitted application's runs is that
    application, and one whose digest is not among them is new, whatever its name.  By name only
    when the profile's runs carry no digests (a profile from an older perfeq, runs imported by hand)
    and the name was given (``perfeq predict --application``).
    """
    digests = {run.digest: run.app for run in profile.runs if run.digest}
    if digests:
        return digests.get(digest) if digest else (application if application in digests.values() else None)
    return application if application in profile.apps else None


def _between_app(profile: MachineProfile, application: str | None) -> tuple[float | None, str]:
    """The between-application error to add (None: none) and a sentence saying what the interval holds;
    ``application`` is the fitted application predicted (``fitted_application``), None for a new one."""
    between = profile.between_app
    if application is not None:
        return None, (
            f"the program is '{application}', one of the fitted applications: the prediction interval "
            "holds the fit's own error only"
        )
    if between is None:
        return None, (
            "the profile has no between-application error (fitted on one application, or written by an "
            "older perfeq): for a program the fit never saw, the prediction interval holds the fit's own "
            "error only and is likely too narrow"
        )
    return between.sigma, (
        "for an application the fit never saw: includes a between-application error of "
        f"{error_text(between.sigma, profile.weighting)} "
        f"(estimated by leaving each of {len(between.app_bias)} calibration applications out in turn)"
    )


MAX_LOG_HALF_WIDTH = 700.0  # exp(700) ~ 1e304: beyond it the interval is "everything" and would overflow


def _log_interval(time_s: float, half_width: float) -> tuple[float, float]:
    """``time_s`` times exp(-h) and exp(h): the interval of a relative (log-scale) error.  A t quantile
    at one or two degrees of freedom (a between-application error from two applications) can make h
    enormous; it is capped so the interval stays finite (and absurdly wide, as it should read)."""
    half_width = min(half_width, MAX_LOG_HALF_WIDTH)
    return time_s * math.exp(-half_width), time_s * math.exp(half_width)


def count_vector(profile: MachineProfile, counts: Mapping[str, float]) -> np.ndarray:
    """The counts in the order of ``profile.names``, ``const`` counted once (FitError when one is missing)."""
    values = []
    for name in profile.names:
        if name == INTERCEPT:
            value = counts.get(INTERCEPT, 1.0)
            if value not in (0.0, 1.0):
                raise FitError(
                    f"count for '{INTERCEPT}' is {value}; the start-up term counts once per run (1), or not "
                    "at all for a program launched without MPI (0)"
                )
        elif name not in counts:
            raise FitError(
                f"no '{name}' count, but the machine profile prices it; give counts for {', '.join(profile.names)}"
            )
        else:
            value = _check_count(name, counts[name], "counts")
        values.append(float(value))
    return np.array(values)


def _check_count(name: str, value: float, where: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.number))
        or not math.isfinite(value)
        or value < 0
    ):
        raise FitError(f"{where}: '{name}' is {value!r}; a count is a finite number >= 0")
    return float(value)


def calibration_warnings(profile: MachineProfile, procs: int | None, threads: int | None,
                         counts: Mapping[str, float] | None) -> list[str]:
    """Where a prediction leaves the box its profile was calibrated in: more processes or threads than
    any calibration run had, message counts the profile does not price (they count as zero), and costs
    written by hand rather than measured."""
    notes = []
    if profile.source == "manual":
        notes.append("the costs come from a hand-written profile (perfeq machine-profile), not from runs "
                     "measured on the machine: nothing says how far this prediction can be trusted")
    for value, name, what in ((procs, "P", "processes"), (threads, "T", "threads")):
        calibrated = [run.procs if name == "P" else run.threads for run in profile.runs]
        if value is not None and calibrated and value > max(calibrated):
            notes.append(f"{name}={value} is beyond the calibrated {what} (at most {max(calibrated)}): what grows "
                         f"with {name} (messages, processes sharing a node) is extrapolated")
    probed = [name for name in MESSAGE_COSTS if name in profile.costs and profile.cost_source(name) == "probe"]
    if probed and procs is not None and procs > 2 and (counts or {}).get("startup", 0.0) > 0:
        if all(profile.costs[name].detail == "pingpong_inter" for name in probed):
            notes.append(f"{' and '.join(probed)} come from a ping-pong between two nodes (perfeq probe): at "
                         f"P={procs} messages within a node may cost less, collectives on many processes more")
        else:
            notes.append(f"{' and '.join(probed)} come from a ping-pong between two processes of one node (perfeq "
                         f"probe): at P={procs} messages between nodes and collectives on many processes may cost "
                         "more")
    notes.extend(_cache_warnings(profile, counts or {}))
    unpriced = unpriced_messages(profile, counts or {})
    if unpriced:
        notes.append(unpriced_text(unpriced))
    if profile.format_version == 1 and profile.source == "fit" and (counts or {}).get("startup", 0.0) > 0 \
            and "startup" in profile.costs:
        notes.append("the profile was fitted by an older perfeq (perfeq-machine 1), whose 'startup' column was the "
                     "messages the slowest rank sends, not those on the critical path it prices now: refit it")
    return notes


UNPRICED = "MESSAGES NOT PRICED"  # starts the warning for message counts priced at zero (printed first)
_MESSAGE_WORDS = {"startup": "messages on the critical path", "bytes": "bytes sent"}


def unpriced_messages(profile: MachineProfile, counts: Mapping[str, float]) -> dict[str, float]:
    """The message counts (startup, bytes) of the slowest rank that ``profile`` has no cost for."""
    return {name: float(counts[name]) for name in MESSAGE_COSTS
            if name not in profile.costs and counts.get(name, 0.0) > 0}


def unpriced_text(unpriced: Mapping[str, float]) -> str:
    """The loud line for message counts priced at zero, with how to price them."""
    what = " and ".join(f"{value:,.0f} {_MESSAGE_WORDS[name]} ('{name}')" for name, value in unpriced.items())
    example = " ".join(f"--set {name}={'5us' if name == 'startup' else '1ns'}" for name in unpriced)
    return (f"{UNPRICED}: the slowest rank's {what} count as 0 s, the machine profile has no cost for "
            f"them (runs on 1-2 processes of one node cannot identify message costs): the time is too low; price "
            f"them with a probe or by hand, e.g. {example}")


CACHE_NAMES = {"l1": "the L1 cache", "l2": "the last-level cache", "page": "the pages of memory touched before",
               "mem": "its share of the last-level cache"}
MISS_GROWTH = 2.0  # a miss share this many times the calibration's largest is beyond the calibrated levels


def _cache_warnings(profile: MachineProfile, counts: Mapping[str, float]) -> list[str]:
    """Working sets beyond the cache levels the calibration runs reached: a larger share of the loads
    missing a level (by the model's footprint rule) than in any calibration run."""
    notes = []
    loads = counts.get("loads", 0.0)
    for key, calibrated in (profile.miss_shares or {}).items():
        share = counts.get(key, 0.0) / loads if loads > 0 else 0.0
        if share > 0.01 and share > MISS_GROWTH * calibrated:
            reached = ("no calibration run's working set left it" if calibrated == 0 else
                       f"at most {100 * calibrated:.2g} % in the calibration runs")
            cost = profile.costs.get(key)
            priced = (f"; the profile does not price '{key}'" if cost is None else
                      f"; priced by the probes ({cost.detail} curve)" if cost.source == "probe" else "")
            what = "lines from memory per load" if key == "mem" else "of the loads miss it"
            notes.append(f"the working set goes beyond {CACHE_NAMES[key]}: {100 * share:.2g} % {what} ({key}), "
                         f"{reached}: the time of that memory traffic is extrapolated{priced}")
    return notes


def _unpriced(profile: MachineProfile, counts: Mapping[str, float], where: str) -> list[str]:
    notes = []
    for name, value in counts.items():
        if name not in (*COSTS, INTERCEPT):
            raise FitError(f"{where}: unknown count '{name}'; accepted: {', '.join(COSTS)}")
        if name not in profile.costs and _check_count(name, value, where) > 0:
            notes.append(
                f"{where}: '{name}' ({value:.3g}) is left out: the machine profile has no '{name}' cost"
            )
    return notes


def _blocks(
    profile: MachineProfile, blocks: Mapping[str, Mapping[str, float]], time_s: float, counted: float,
    notes: list[str], cov: np.ndarray | None = None,
) -> tuple[Contribution, ...]:
    """Each block's seconds and share of ``time_s``; ``counted``: the predicted time but the start-up
    term as charged (nothing for a program without MPI), which the blocks should add up to."""
    result = []
    for block, block_counts in blocks.items():
        notes.extend(_unpriced(profile, block_counts, f"block '{block}'"))
        x_b = np.array([0.0 if name == INTERCEPT else
                        _check_count(name, block_counts.get(name, 0.0), f"block '{block}'") for name in profile.names])
        seconds = float(x_b @ profile.beta)
        stderr = None if cov is None else float(np.sqrt(max(x_b @ cov @ x_b, 0.0)))
        result.append(Contribution(block, seconds, _percent(seconds, time_s), stderr))
    covered = sum(part.seconds for part in result)
    if counted > 0 and abs(covered - counted) > 0.01 * counted:
        notes.append(f"the blocks account for {100 * covered / counted:.1f} % of the counted time, not 100 %")
    return tuple(result)


def _extrapolation(
    profile: MachineProfile,
    counts: Mapping[str, float],
    contributions: tuple[Contribution, ...],
    time_s: float,
    factor: float,
) -> str | None:
    if not profile.calibration_range or time_s <= 0:
        return None
    findings = []
    for part in contributions:
        if part.name not in profile.calibration_range or abs(part.seconds) < DOMINANT_SHARE * time_s:
            continue
        count, largest = counts[part.name], profile.calibration_range[part.name][1]
        if count > factor * largest:
            findings.append(
                f"'{part.name}' count {count:.3g} is {count / largest:.0f}x the largest in the calibration runs ({largest:.3g})"
            )
    if not findings:
        return None
    return "extrapolation: " + "; ".join(findings) + "; the fitted costs may not hold that far out"


def _percent(seconds: float, total: float) -> float:
    return float(100.0 * seconds / total) if total > 0 else 0.0


SYNC = "sync"  # the synchronisation term's line among the contributions


def compute_seconds(prediction: Prediction) -> float:
    """The predicted seconds of computation of the slowest rank: every cost but messages and ``const``."""
    return sum(part.seconds for part in prediction.contributions
               if part.name not in (*MESSAGE_COSTS, INTERCEPT, SYNC))


def with_synchronisation(prediction: Prediction, term) -> Prediction:
    """``prediction`` with the synchronisation term (a SyncTerm) added: its own contribution line
    ``sync`` (standard error: its run-to-run spread and the estimation of the bursts' spread), the
    time and both intervals moved by its seconds, the confidence interval of the mean widened by its
    estimation error and the prediction interval by its whole standard error (in quadrature), neither
    reaching below the deterministic interval's low end (a wait is not negative)."""
    seconds = term.seconds
    time_s = prediction.time_s + seconds
    quantile = float(stats.norm.ppf(0.5 + prediction.level / 2.0))

    def widened(interval: tuple[float, float] | None, extra: float, floor: float) -> tuple[float, float] | None:
        """Moved by the term's seconds and widened by ``extra`` in quadrature; never below the
        deterministic interval's low end plus ``floor`` (a wait is not negative)."""
        if interval is None:
            return None
        low, high = interval
        below = math.hypot(prediction.time_s - low, quantile * extra)
        above = math.hypot(high - prediction.time_s, quantile * extra)
        return max(time_s - below, low + floor), time_s + above

    contributions = tuple(dataclasses.replace(part, percent=_percent(part.seconds, time_s))
                          for part in prediction.contributions)
    contributions += (Contribution(SYNC, seconds, _percent(seconds, time_s), term.stderr),)
    blocks = None if prediction.blocks is None else tuple(
        dataclasses.replace(part, percent=_percent(part.seconds, time_s)) for part in prediction.blocks)
    return dataclasses.replace(
        prediction, time_s=time_s, contributions=contributions, blocks=blocks,
        mean_interval=widened(prediction.mean_interval, term.estimation_stderr, 0.0),
        prediction_interval=widened(prediction.prediction_interval, term.stderr, term.interval[0]),
        synchronisation=term.to_dict(), warnings=prediction.warnings + term.warnings)


def priced_slowest(betas: Mapping[str, float], counts: dict) -> int:
    """The rank whose counts the costs ``betas`` (seconds per count) price highest: the most
    operations is not always the longest time (the interior ranks of a chain send twice the
    messages of rank 0, whose few more operations made it the slowest by count); the rank with
    the most operations (``counts["slowest_rank"]``) when no cost has a positive value."""
    per_rank = counts["per_rank"]
    times = np.zeros(len(per_rank["ops"]))
    for cost, beta in betas.items():
        if cost != INTERCEPT and cost in per_rank and beta > 0:
            times += beta * np.asarray(per_rank[cost], dtype=float)
    return int(np.argmax(times)) if times.any() else int(counts["slowest_rank"])


def predict_model(model, profile: MachineProfile, values: Mapping[str, float], procs: int, threads: int,
                  hardware, *, level: float = 0.95, application: str | None = None, synchronisation: bool = False,
                  noise=None) -> tuple[Prediction, dict[str, float], int]:
    """A program's prediction from its model (perfeq.symbolic.model.CostModel) at ``values``, P, T:
    the slowest rank's counts priced by ``profile``, each block of that rank, and the calibrated box;
    with ``synchronisation``, plus the synchronisation term of the model's synchronising call sites
    (off by default, ``perfeq predict --sync``: the fitted costs already hold the waiting of the
    calibration runs, and bursts from tiny training runs measure OS noise; docs/variability.md), its
    bursts' variance split by the probe's ``noise`` (synchronisation.Noise) when given.

    Returns the prediction, the slowest rank's counts and that rank.  ``hardware`` is the cache
    description (perfeq.symbolic.machine.Machine) the miss counts come from.
    """
    model.require(*(cost for cost in profile.names if cost != INTERCEPT))
    counts = model.counts(dict(values), procs, threads, hardware)
    rank = priced_slowest({cost: profile.costs[cost].value for cost in profile.names}, counts)
    slowest = {key: by_rank[rank] for key, by_rank in counts["per_rank"].items()}
    blocks = {label: {key: value for key, value in row.items() if key in profile.names}
              for label, row in model.block_counts(dict(values), procs, threads, rank, hardware).items()}
    priced = {cost: slowest.get(cost, 0.0) for cost in profile.names if cost != INTERCEPT}
    if INTERCEPT in profile.names and not model.uses_mpi:
        priced[INTERCEPT] = 0.0  # the calibration runs' launch (mpiexec, MPI_Init): not this program's
    prediction = predict(profile, priced, blocks, level=level, application=application, digest=model.digest,
                         procs=procs, threads=threads, all_counts=slowest)
    if synchronisation and model.sync:
        term = synchronisation_term(model, values, procs, threads, max(compute_seconds(prediction), 0.0),
                                    level=level, noise=noise)
        if term is not None:
            prediction = with_synchronisation(prediction, term)
    return prediction, slowest, rank
