"""Characteristic functions u_i(p) or u_i(n, p) for the scaling analysis (Strohmaier 1997, Eqs. 4-10).

A function is written as text (``1/p``, ``log(p)/p``, ``n^2/p``) and parsed by a tiny evaluator that
walks the Python AST and accepts only numbers, ``p``, ``n``, ``+ - * / ^`` and a few named functions;
nothing is ever passed to ``eval``.  Used by :mod:`perfeq.fitting.scaling.analysis` to build design matrices.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from perfeq.errors import UsageError

# The paper's set u_1..u_7, in its order (Eqs. 4-10).
DEFAULT_FUNCTIONS: tuple[str, ...] = ("1/p^2", "1/p", "log(p)/p", "1/sqrt(p)", "1", "log(p)", "p")

# A starting set in (n, p) for data with several problem sizes: parallel work growing like n, n^2,
# n^3 or n log n, surface-to-volume communication n/sqrt(p) and n^2/p^(2/3), serial work n and 1,
# and tree-like collectives log(p).
DEFAULT_SIZE_FUNCTIONS: tuple[str, ...] = (
    "n/p",
    "n^2/p",
    "n^3/p",
    "n*log(n)/p",
    "n/sqrt(p)",
    "n^2/p^(2/3)",
    "n",
    "1",
    "log(p)",
)

VARIABLES = ("p", "n")
NAMED_FUNCTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "log": np.log,
    "ln": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "sqrt": np.sqrt,
    "exp": np.exp,
}
_BINARY = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.divide,
    ast.Pow: np.power,
}
_UNARY = {ast.USub: np.negative, ast.UAdd: np.positive}
_MAX_LENGTH = 200
_ACCEPTED = "numbers, p, n, + - * / ^, parentheses and " + ", ".join(NAMED_FUNCTIONS)


@dataclass(frozen=True)
class CharacteristicFunction:
    """One characteristic function, normalised so that u(p=1, n=1) is 1 or 0 (the paper's rule).

    ``label`` is the text as the user wrote it (spaces removed); ``normalisation`` is the value the
    raw expression was divided by (1.0 when it already was 1 or 0 at p = 1).
    """

    label: str
    expression: str
    uses_size: bool
    normalisation: float
    tree: ast.Expression = field(repr=False, compare=False)

    def __call__(self, p: np.ndarray | float, n: np.ndarray | float | None = None) -> np.ndarray:
        """Evaluate on processor counts ``p`` (and problem sizes ``n``) as a float array."""
        p_values = np.asarray(p, dtype=float)
        n_values = np.ones_like(p_values) if n is None else np.asarray(n, dtype=float)
        values = _evaluate_raw(self.tree, {"p": p_values, "n": n_values})
        return np.broadcast_to(values, np.broadcast(p_values, n_values).shape) / self.normalisation


def parse_function(text: str) -> CharacteristicFunction:
    """Parse one characteristic function; raise :class:`UsageError` naming what is not accepted."""
    label = "".join(text.split())
    if not label:
        raise UsageError("--functions: empty function; give e.g. 1/p,1/sqrt(p)")
    if len(label) > _MAX_LENGTH:
        raise UsageError(f"--functions: '{label[:40]}...' is longer than {_MAX_LENGTH} characters")
    try:
        tree = ast.parse(label.replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise UsageError(
            f"--functions: '{label}' is not an expression ({exc.msg}); accepted: {_ACCEPTED}"
        ) from None
    _check_node(tree.body, label)
    uses_size = any(isinstance(node, ast.Name) and node.id == "n" for node in ast.walk(tree))
    with np.errstate(all="ignore"):
        at_one = float(_evaluate_raw(tree, {"p": np.array(1.0), "n": np.array(1.0)}))
    if not np.isfinite(at_one):
        raise UsageError(
            f"--functions: '{label}' is not finite at p=1 (n=1); characteristic functions are "
            "normalised there to 1 or 0"
        )
    normalisation = 1.0 if abs(at_one) < 1e-12 else at_one
    return CharacteristicFunction(
        label=label,
        expression=ast.unparse(tree),
        uses_size=uses_size,
        normalisation=normalisation,
        tree=tree,
    )


def parse_functions(
    spec: str | Iterable[str] | None, *, with_size: bool = False
) -> tuple[CharacteristicFunction, ...]:
    """Parse a comma-separated list (or a sequence) of functions; ``None`` gives the default set.

    Commas inside parentheses do not split, so ``log(p)/p,1`` gives two functions.
    """
    if spec is None:
        texts: list[str] = list(DEFAULT_SIZE_FUNCTIONS if with_size else DEFAULT_FUNCTIONS)
    elif isinstance(spec, str):
        texts = _split_top_level(spec)
    else:
        texts = list(spec)
    functions = tuple(parse_function(text) for text in texts)
    if not functions:
        raise UsageError("--functions: no functions given; give e.g. 1/p,1/sqrt(p)")
    seen: set[str] = set()
    for function in functions:
        if function.label in seen:
            raise UsageError(f"--functions: '{function.label}' is given twice")
        seen.add(function.label)
    return functions


def model_label(functions: Iterable[str]) -> str:
    """The display name of a model built from the functions with these labels: ``1/p + 1``."""
    return " + ".join(functions)


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for character in text:
        if character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
        if character == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(character)
    parts.append("".join(current))
    return parts


def _check_node(node: ast.AST, label: str) -> None:
    """Accept only the whitelisted node kinds, so evaluation can never reach Python itself."""
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        _check_node(node.left, label)
        _check_node(node.right, label)
    elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        _check_node(node.operand, label)
    elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
        try:
            finite = np.isfinite(float(node.value))
        except OverflowError:
            finite = False
        if not finite:
            raise UsageError(f"--functions: '{label}': the number {node.value!r:.20} is out of range")
    elif isinstance(node, ast.Name):
        if node.id not in VARIABLES:
            raise UsageError(f"--functions: '{label}': unknown name '{node.id}'; accepted: {_ACCEPTED}")
    elif isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in NAMED_FUNCTIONS:
            shown = name or ast.unparse(node.func)
            raise UsageError(f"--functions: '{label}': unknown function '{shown}'; accepted: {_ACCEPTED}")
        if len(node.args) != 1 or node.keywords:
            raise UsageError(f"--functions: '{label}': {name}() takes exactly one argument")
        _check_node(node.args[0], label)
    else:
        raise UsageError(
            f"--functions: '{label}': '{ast.unparse(node)}' is not accepted; accepted: {_ACCEPTED}"
        )


def _evaluate_raw(tree: ast.Expression, env: dict[str, np.ndarray]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _evaluate(tree.body, env)


def _evaluate(node: ast.AST, env: dict[str, np.ndarray]) -> np.ndarray:
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_evaluate(node.left, env), _evaluate(node.right, env))
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_evaluate(node.operand, env))
    if isinstance(node, ast.Constant):
        return np.float64(node.value)
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Call):
        return NAMED_FUNCTIONS[node.func.id](_evaluate(node.args[0], env))
    raise AssertionError(f"unchecked node {ast.dump(node)}")  # _check_node rejects everything else
