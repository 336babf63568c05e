"""Task-time distributions written on the command line: ``erlang:2,1``, ``uniform:1,3@2.5``, ...

One reader for ``perfeq tasks --dist`` and ``--comm``; every mistake is one UsageError line naming the
text, what is accepted and an example.
"""

from __future__ import annotations

import math

from perfeq.errors import UsageError
from perfeq.fitting.variability.distributions import (
    TaskTime,
    deterministic,
    erlang,
    exponential,
    fit_moments,
    from_terms,
    uniform,
)

FORMS = {
    "exp": "exp:RATE",
    "erlang": "erlang:K,RATE",
    "det": "det:VALUE",
    "uniform": "uniform:A,B",
    "theta": "theta:A,K,RATE,THETA[/A,K,RATE,THETA...]",
    "fit": "fit:MEAN,VARIANCE[,MIN]",
}
ACCEPTED = ", ".join(FORMS.values()) + ", each optionally truncated at its right end-point x0 with @X0"


def _numbers(option: str, text: str, body: str, counts: tuple[int, ...], form: str) -> list[float]:
    parts = body.split(",") if body else []
    try:
        values = [float(part) for part in parts]
    except ValueError:
        raise UsageError(f"{option} {text}: {body!r} are not numbers; expected {form}") from None
    if len(values) not in counts or not all(math.isfinite(v) for v in values):
        raise UsageError(f"{option} {text}: expected {form}")
    return values


def parse_task_time(text: str, option: str = "--dist") -> TaskTime:
    """A task time from ``FAMILY:PARAMETERS[@X0]`` (see ``FORMS``).  ``fit:MEAN,VARIANCE[,MIN]@X0`` fits
    the mean and variance of the truncated distribution; the other forms are truncated after."""
    body, _, end = text.partition("@")
    family, sep, parameters = body.partition(":")
    family = family.strip().lower()
    if not sep or family not in FORMS:
        raise UsageError(f"{option} {text}: unknown distribution; accepted: {ACCEPTED}")
    form = FORMS[family]
    try:
        if family == "exp":
            (rate,) = _numbers(option, text, parameters, (1,), form)
            task = exponential(rate)
        elif family == "erlang":
            shape, rate = _numbers(option, text, parameters, (2,), form)
            task = erlang(int(shape) if shape.is_integer() else shape, rate)
        elif family == "det":
            (value,) = _numbers(option, text, parameters, (1,), form)
            task = deterministic(value)
        elif family == "uniform":
            low, high = _numbers(option, text, parameters, (2,), form)
            task = uniform(low, high)
        elif family == "theta":
            terms = []
            for part in parameters.split("/"):
                coef, stage, rate, shift = _numbers(option, text, part, (4,), form)
                if not stage.is_integer():
                    raise ValueError(f"the stage k = {stage:g} must be a whole number")
                terms.append((coef, int(stage), rate, shift))
            task = from_terms(terms, name=f"theta({parameters})")
        else:
            values = _numbers(option, text, parameters, (2, 3), form)
            x0 = _numbers(option, text, end, (1,), f"{form}@X0")[0] if end else None
            task = fit_moments(values[0], values[1], minimum=values[2] if len(values) == 3 else None,
                               support_end=x0)
            end = ""  # the fit matches the moments after truncation at x0 itself
        if end:
            (x0,) = _numbers(option, text, end, (1,), f"{form}@X0")
            task = task.truncate(x0)
    except ValueError as exc:
        raise UsageError(f"{option} {text}: {exc}") from None
    return task
