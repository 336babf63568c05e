"""Command-line values every stage's commands share: parameter names and parameter values.

Part of perfeq's base: ``perfeq cc``/``instrument``/``model`` take ``--param SYMBOL=variable``;
``perfeq counts``/``predict`` take ``NAME=VALUE`` assignments with ``P`` and ``T``.  Bad values are
one-line UsageErrors.
"""

from __future__ import annotations

from perfeq.errors import UsageError


def parse_param_names(items: list[str] | None) -> dict[str, str]:
    """``--param N=n`` pairs: model symbol = program variable or macro."""
    params: dict[str, str] = {}
    for item in items or []:
        symbol, sep, variable = item.partition("=")
        if not sep or not symbol.isidentifier() or not variable.isidentifier():
            raise UsageError(f"--param {item}: expected SYMBOL=variable, e.g. --param N=n")
        params[symbol] = variable
    return params


def parse_assignments(items: list[str]) -> tuple[dict[str, float], int, int]:
    """``N=65536 P=64 T=2`` -> (parameter values, P, T)."""
    values: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"{item}: expected NAME=VALUE, e.g. N=65536 P=64")
        try:
            values[name] = float(value)
        except ValueError:
            raise UsageError(f"{item}: {value!r} is not a number") from None
    procs = int(values.pop("P", 1))
    threads = int(values.pop("T", 1))
    if procs < 1 or threads < 1:
        raise UsageError("P and T must be at least 1")
    return values, procs, threads
