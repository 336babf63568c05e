"""A model's counts written out (``perfeq equation``): as text, LaTeX or Maple, and as a Python module
that evaluates every term.

Part of perfeq stage 3 (symbolic/).  In the Python module each count key of the model becomes a
function of the problem-size parameters, P, the rank and T; the MPI message functions of the model
(``mpi_sent_bcast(P, v)`` ...) are bound to perfeq's implementations of the collective algorithms,
so the module needs perfeq to run, nothing else.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.latex import LatexPrinter
from sympy.printing.pycode import PythonCodePrinter

from perfeq.symbolic.chi import CACHE_KEYS
from perfeq.symbolic.chi import SOURCE_KEYS as KEYS
from perfeq.symbolic.model import CostModel


def _show(expr) -> str:
    return str(sp.factor(expr)) if isinstance(expr, sp.Expr) and not expr.has(sp.Function) else str(expr)


def _maple(expr) -> str:
    """Maple syntax (sympy's Maple printer: floor, piecewise, min, ^ ...)."""
    from sympy.printing.maple import maple_code

    return maple_code(expr)


class _LatexPrinter(LatexPrinter):
    r"""sympy's LaTeX, with names that hold underscores kept whole: ``mpi_critical_send(P)`` as
    ``\operatorname{mpi\_critical\_send}(P)``, the parameter ``current_nx`` as ``\mathit{current\_nx}``
    (sympy reads an underscore as a subscript: ``mpi_{\mathcal{criti} send}``)."""

    def _print_Function(self, expr, exp=None):
        name = expr.func.__name__
        if not isinstance(expr, AppliedUndef) or "_" not in name:
            return super()._print_Function(expr, exp)
        args = ", ".join(self._print(arg) for arg in expr.args)
        text = rf"\operatorname{{{_escaped(name)}}}{{\left({args} \right)}}"
        return text if exp is None else rf"{text}^{{{exp}}}"

    def _print_Symbol(self, expr, style="plain"):
        if "_" in expr.name:
            return rf"\mathit{{{_escaped(expr.name)}}}"
        return super()._print_Symbol(expr, style)


def _escaped(name: str) -> str:
    return name.replace("_", r"\_")


def _latex(expr) -> str:
    return _LatexPrinter().doprint(expr)


# An expression as each format writes it (``perfeq equation --format``; python is ``python_module``).
FORMATTERS = {"text": _show, "latex": _latex, "maple": _maple}


def python_module(model: CostModel, beta: dict[str, float] | None = None, source: str = "") -> str:
    """The text of the module: ``chi_<key>(params..., P, rank, T=1)`` for every count key of the model
    (ops and its kinds, branch, chain, shared, par, startup, bytes, critical, ...) and ``t(beta, ...)``;
    with ``beta`` (a machine profile's values, from ``source``) also ``BETA``, so ``t(BETA, ...)`` is
    the predicted time of one rank."""
    totals = model.totals()
    exprs = {key: totals.get(key, sp.Integer(0)) for key in dict.fromkeys([*KEYS, *totals]) if key != "ops_total"}
    used = sorted({f.func.__name__ for e in exprs.values() for f in e.atoms(AppliedUndef)})
    printer = PythonCodePrinter({"user_functions": {name: name for name in used}})
    names = [str(s) for s in model.size_symbols]
    signature = ", ".join([*names, "P", "rank", "T=1"])
    call = ", ".join([*names, "P", "rank", "T"])
    lines = [f"# chi of {model.program} per rank, from perfeq equation --format python: every term evaluates.",
             "# The MPI message functions are perfeq's collective algorithms (perfeq.symbolic.messages).",
             "import math", ""]
    if used:
        lines += ["from perfeq.symbolic.counts.comm import all_message_functions", "",
                  "_MPI = {str(f): f._imp_ for f in all_message_functions().values()}"]
        lines += [f"{name} = _MPI[{name!r}]" for name in used]
    for key, expr in exprs.items():
        lines += ["", "", f"def chi_{key}({signature}):", f"    return {printer.doprint(expr)}"]
    lines += ["", "", f"def t(beta, {signature}, {', '.join(f'{k}=0.0' for k in CACHE_KEYS)}):",
              '    """Seconds of one rank: beta maps costs to seconds each (a machine profile\'s values);',
              '    l1, l2, page: that rank\'s misses and faults (perfeq counts --caches)."""',
              "    chi = {" + ", ".join(f"{k!r}: chi_{k}({call})" for k in exprs) + ", "
              + ", ".join(f"{k!r}: {k}" for k in CACHE_KEYS) + "}",
              "    return float(sum(beta.get(key, 0.0) * value for key, value in chi.items()) + beta.get('const', 0.0))"]
    if beta is not None:
        lines += ["", "", f"# seconds per count of the machine profile {source}: t(BETA, ...) is its prediction",
                  "BETA = {" + ", ".join(f"{k!r}: {v!r}" for k, v in beta.items()) + "}"]
    return "\n".join(lines) + "\n"
