"""Plain-text tables of a machine profile and of a prediction, in readable units (ns/op, us/message).

The printing end of the fitting stage: formats data from profile.py and predict.py, computes nothing.
"""

from __future__ import annotations

from perfeq.fitting.costs import cost_spec
from perfeq.fitting.regression.predict import UNPRICED as LOUD
from perfeq.fitting.regression.predict import Prediction
from perfeq.fitting.regression.profile import HELD_OUT, MachineProfile, Selection, error_text


def selection_lines(selection: Selection) -> list[str]:
    """The cost set chosen and why, the best runners-up and the sets given up (``perfeq fit``, the tour)."""
    const = " (+ const)" if selection.intercept else ""
    usable = sorted((c for c in selection.candidates if c.held_out is not None), key=lambda c: c.held_out)
    if selection.criterion == HELD_OUT:
        best = next(c for c in usable if c.costs == selection.chosen)
        lines = [f"costs chosen by leave-one-application-out cross-validation: {','.join(selection.chosen)}"
                 f"{const}, held-out mean |error| {100 * best.held_out:.1f} %"]
    else:
        lines = [f"costs: {','.join(selection.chosen)}{const}, the first admissible set of perfeq's list "
                 "(runs of one application: none to hold out)"]
    lines += [f"  runner-up {','.join(c.costs)}: held-out mean |error| {100 * c.held_out:.1f} %"
              for c in usable if c.costs != selection.chosen][:3]
    lines += [f"  not admissible {','.join(c.costs)}: {c.reason}" for c in selection.candidates if c.reason]
    return lines


def format_profile(profile: MachineProfile) -> str:
    """The costs table with fit quality and warnings, as printed by ``perfeq fit``."""
    lines = []
    if profile.source == "manual":
        lines.append(f"machine costs (manual profile{_host(profile)})")
        lines.append(f"{'cost':<8} {'value':>12}  unit")
        for name, estimate in profile.costs.items():
            spec = cost_spec(name)
            lines.append(f"{name:<8} {_scaled(estimate.value, spec.unit_seconds):>12}  {spec.display_unit}")
        lines.append("no statistics: predictions from this profile carry no intervals")
    else:
        percent = round(100 * profile.level)
        method = (
            "weighted least squares, weights 1/t^2"
            if profile.weighting == "relative"
            else "ordinary least squares"
        )
        lines.append(
            f"machine costs ({method}; {profile.n_runs} runs, {profile.df_resid} residual df{_host(profile)})"
        )
        ci_title = f"{percent}% CI"
        mixed = any(profile.cost_source(name) != profile.source for name in profile.costs)
        lines.append(
            f"{'cost':<8} {'value':>10} {'unit':<14} {'stderr':>10} {ci_title:>23} {'p-value':>9} {'VIF':>7}"
            + ("  from" if mixed else "")
        )
        for name, est in profile.costs.items():
            spec = cost_spec(name)
            unit = spec.unit_seconds
            interval = f"[{_scaled(est.ci_low, unit)}, {_scaled(est.ci_high, unit)}]"
            vif = (profile.vif or {}).get(name)
            lines.append(
                f"{name:<8} {_scaled(est.value, unit):>10} {spec.display_unit:<14} {_scaled(est.stderr, unit):>10} "
                f"{interval:>23} {_p_value(est.p_value):>9} {'' if vif is None else f'{vif:.3g}':>7}"
                + (f"  {profile.cost_source(name)}" if mixed else "")
            )
        lines.append(
            f"R^2 ({profile.rsquared_kind}) {profile.rsquared:.6g}   sigma {_sigma(profile)}   "
            f"condition number {profile.condition_number:.3g}"
        )
        between = profile.between_app
        if between is not None:
            biases = ", ".join(f"{app} {error_text(bias, profile.weighting, sign=True)}"
                               for app, bias in between.app_bias.items())
            lines.append(
                f"between-application error {error_text(between.sigma, profile.weighting)} ({len(between.app_bias)} "
                f"applications, each predicted from a fit on the others; mean error {biases}; "
                f"{between.df} df): added to prediction intervals for applications the fit never saw"
            )
    lines.extend(_warnings(profile.warnings))
    return "\n".join(lines)


def format_prediction(prediction: Prediction) -> str:
    """The predicted time, its intervals and the breakdown by cost (and block), one item a line."""
    percent = round(100 * prediction.level)
    lines = [f"predicted time {prediction.time_s:.4g} s"]
    loud = [note for note in prediction.warnings if note.startswith(LOUD)]
    lines.extend(_warnings(tuple(loud)))
    if prediction.edits:
        lines.append("what-if: " + "; ".join(prediction.edits))
    if prediction.mean_interval and prediction.prediction_interval:
        low, high = prediction.mean_interval
        lines.append(f"  {percent}% confidence interval of the mean  [{low:.4g}, {high:.4g}] s")
        low, high = prediction.prediction_interval
        lines.append(f"  {percent}% prediction interval of one run   [{low:.4g}, {high:.4g}] s")
        if prediction.prediction_note:
            lines.append(f"    ({prediction.prediction_note})")
    else:
        lines.append(f"  {prediction.intervals_note}")
    lines.append("by cost (seconds, share, where the cost comes from, standard error from the costs' covariance):")
    lines.extend(f"  {part.name:<8} {part.seconds:>12.4g} s {part.percent:>6.1f} %  {part.source or '':<7}"
                 f"{_stderr(part)}".rstrip() for part in prediction.contributions)
    if prediction.synchronisation is not None:
        lines.extend(format_synchronisation(prediction.synchronisation))
    if prediction.blocks is not None:
        ranked = sorted(prediction.blocks, key=lambda part: -abs(part.seconds))
        shown = [part for part in ranked[:TOP_BLOCKS] if part.seconds != 0]
        lines.append(f"by block (largest first, {len(shown)} of {len(ranked)}; --json has them all):")
        lines.extend(f"  {part.name:<24} {part.seconds:>12.4g} s {part.percent:>6.1f} %{_stderr(part)}"
                     for part in shown)
    lines.extend(f"  {line}" for line in interval_advice(prediction))
    notes = ([prediction.extrapolation] if prediction.extrapolation else []) + [
        note for note in prediction.warnings if note not in loud]
    lines.extend(_warnings(tuple(notes)))
    return "\n".join(lines)


def format_synchronisation(term: dict) -> list[str]:
    """The synchronisation term (a SyncTerm's dict): its interval, its sites, what it assumes."""
    low, high = term["interval"]
    lines = [f"  sync: waiting for the slowest of P={term['procs']} ranks at synchronising calls, "
             f"{round(100 * term['level'])}% interval [{low:.4g}, {high:.4g}] s "
             f"(bursts measured in {term['reference_trace'] or 'no trace'})"]
    for site in sorted(term["sites"], key=lambda s: -abs(s["seconds"])):
        lines.append(f"    {site['label']}: {site['calls']:.4g} calls x {site['wait']:.3g} s "
                     f"(burst {site['mean_burst']:.3g} s, cv {site['cv']:.2g}; {site['method']})")
    noise = term.get("noise")
    if noise:
        lines.append(f"    noise from {noise['source']}: {noise['rate']:.0f} interruptions per second, "
                     f"{noise['length'] * 1e6:.3g} us each on average ({noise['variance']:.3g} s^2 of variance "
                     "per second of burst)")
    lines.extend(f"    left out: {note}" for note in term["skipped"])
    lines.extend(f"    assumes: {note}" for note in term["assumptions"])
    return lines


TOP_BLOCKS = 12  # blocks shown in the text of a prediction
WIDE = 2.0  # a prediction interval wider than this ratio (high / low) gets advice


def interval_advice(prediction: Prediction) -> list[str]:
    """When the prediction interval is more than WIDE times wide: what makes it so (the shares of the
    variance of one run) and what would tighten it, largest part first; else nothing."""
    if not prediction.prediction_interval or not prediction.variance_shares:
        return []
    low, high = prediction.prediction_interval
    if low > 0 and high / low <= WIDE:
        return []
    width = f"{high / low:.1f}x wide" if low > 0 else "reaches down to 0 s"
    shares = prediction.variance_shares
    parts = ", ".join(f"{name} {100 * share:.0f} %" for name, share in sorted(shares.items(), key=lambda i: -i[1]))
    lines = [f"the {round(100 * prediction.level)}% prediction interval is {width} (high / low); "
             f"its variance comes from: {parts}"]
    for name, share in sorted(shares.items(), key=lambda item: -item[1]):
        if share >= 0.2:
            lines.append(f"to tighten it ({name}): {_ADVICE[name]}")
    return lines


_ADVICE = {
    "runs": "the chosen costs leave each calibration run this far off (the profile's sigma): time longer "
            "calibration runs with more repetitions on an idle machine (noise), and calibrate on applications "
            "whose time the priced counts explain (perfeq validate shows which are off)",
    "applications": "a program the fit never saw may be off by the between-application error: calibrate on "
                    "more applications with this program's traits, or add a few timed runs of this very "
                    "program to the calibration (it then gets the in-sample interval)",
    "costs": "the costs are uncertain at these counts: calibrate at sizes and process counts nearer the "
             "prediction, so that it is not extrapolated from the calibration runs",
}


def _stderr(part) -> str:
    return "" if part.stderr is None else f"  +- {part.stderr:.2g} s"


def _scaled(value: float | None, unit_seconds: float) -> str:
    return "-" if value is None else f"{value / unit_seconds:.4g}"


def _p_value(value: float | None) -> str:
    if value is None:
        return "-"
    return "<1e-16" if value < 1e-16 else f"{value:.2g}"


def _sigma(profile: MachineProfile) -> str:
    text = error_text(profile.sigma, profile.weighting)
    return f"{text} of run time (relative)" if profile.weighting == "relative" else text


def _host(profile: MachineProfile) -> str:
    return f"; host {profile.host}" if profile.host else ""


def _warnings(notes: tuple[str, ...]) -> list[str]:
    return [f"warning: {note}" for note in notes]
