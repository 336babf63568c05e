"""Command-line values every stage's commands share: parameter names and parameter values.

Part of perfeq's base: ``perfeq cc``/``instrument``/``model`` take ``--param SYMBOL=variable``;
``perfeq counts``/``predict`` take ``NAME=VALUE`` assignments with ``P`` and ``T``.  Bad values are
one-line UsageErrors.
"""

from __future__ import annotations

import math
import re

from perfeq.errors import UsageError

# a C lvalue naming a problem-size parameter: a variable, a struct field, an element at a constant
# index or at a variable's (``nx[lt]``, NPB MG's finest level, read with fscanf)
_LVALUE = re.compile(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[\s*(?:\d+|[A-Za-z_]\w*)\s*\])*")


def canonical_lvalue(text: str) -> str | None:
    """``in->particles`` -> ``in.particles``, ``sizes[ 0 ]`` -> ``sizes[0]``: the one spelling of a
    parameter's C lvalue (``->`` written ``.``, no blanks); None if ``text`` is no such lvalue."""
    text = text.strip()
    if not _LVALUE.fullmatch(text):
        return None
    return re.sub(r"\s+", "", text).replace("->", ".")


def path_root(path: str) -> str:
    """The variable a canonical lvalue starts from: ``cmd`` of ``cmd.nx``, ``sizes`` of ``sizes[0]``."""
    return re.split(r"[.\[]", path, maxsplit=1)[0]


# perfeq's own symbols: the processes, the threads per process and the MPI rank
RESERVED = {"P": "the number of processes", "T": "the number of threads per process", "rank": "the MPI rank"}


def lvalue_symbol(lvalue: str) -> str:
    """The model symbol of a parameter found at a canonical lvalue: ``cmd.nx`` -> ``cmd_nx``; a
    program's own ``T`` (a step count), ``P`` or ``rank`` is ``T_``, ``P_``, ``rank_``: the names
    without the underscore are perfeq's (:data:`RESERVED`)."""
    return unreserved(re.sub(r"\W+", "_", lvalue).strip("_"))


def unreserved(symbol: str) -> str:
    """``symbol``, or with an underscore appended when perfeq keeps the name for itself."""
    return f"{symbol}_" if symbol in RESERVED else symbol


def parse_param_names(items: list[str] | None) -> dict[str, str]:
    """``--param N=n`` pairs: model symbol = program variable, struct field (``cmd.nx``,
    ``in->particles``), array element (``sizes[0]``, ``nx[lt]``) or macro, in its canonical spelling."""
    params: dict[str, str] = {}
    for item in items or []:
        symbol, sep, variable = item.partition("=")
        lvalue = canonical_lvalue(variable) if sep else None
        if not symbol.isidentifier() or lvalue is None:
            raise UsageError(f"--param {item}: expected SYMBOL=variable, e.g. --param N=n or --param N=cmd.nx")
        if symbol in RESERVED:
            raise UsageError(f"--param {item}: {symbol} is {RESERVED[symbol]} in every model; "
                             f"name the parameter otherwise, e.g. --param {symbol}_={variable}")
        params[symbol] = lvalue
    return params


def parse_assignments(items: list[str]) -> tuple[dict[str, float], int, int]:
    """``N=65536 P=64 T=2`` -> (parameter values, P, T).

    Values are finite and not negative (a problem size, a step count); P and T are whole numbers of
    at least 1.  Anything else is one UsageError line naming the item.
    """
    values: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"{item}: expected NAME=VALUE, e.g. N=65536 P=64")
        try:
            number = float(value)
        except ValueError:
            raise UsageError(f"{item}: {value!r} is not a number") from None
        if not math.isfinite(number) or number < 0:
            raise UsageError(f"{item}: a parameter value must be a finite number, not negative")
        values[name] = number
    procs, threads = _count(values, "P", "processes"), _count(values, "T", "threads per process")
    return values, procs, threads


def _count(values: dict[str, float], name: str, what: str) -> int:
    """P or T taken out of ``values``: a whole number of at least 1 (default 1)."""
    number = values.pop(name, 1.0)
    if number < 1 or not number.is_integer():
        raise UsageError(f"{name}={number:g}: the number of {what} must be a whole number of at least 1")
    return int(number)
