"""Command-line values shared by the stages (perfeq/arguments.py): one error line for what cannot be."""

from __future__ import annotations

import pytest

from perfeq.arguments import parse_assignments, parse_param_names
from perfeq.errors import UsageError


def test_assignments_give_values_processes_and_threads() -> None:
    assert parse_assignments(["N=65536", "steps=10", "P=64", "T=2"]) == ({"N": 65536.0, "steps": 10.0}, 64, 2)
    assert parse_assignments(["n=0"]) == ({"n": 0.0}, 1, 1)


@pytest.mark.parametrize(("items", "message"), [
    (["N=-64"], "N=-64: a parameter value must be a finite number, not negative"),
    (["N=inf"], "N=inf: a parameter value must be a finite number, not negative"),
    (["N=nan"], "N=nan: a parameter value must be a finite number, not negative"),
    (["N=many"], "N=many: 'many' is not a number"),
    (["N"], "N: expected NAME=VALUE"),
    (["=4"], "=4: expected NAME=VALUE"),
    (["N=4", "P=2.5"], "P=2.5: the number of processes must be a whole number of at least 1"),
    (["N=4", "P=0"], "P=0: the number of processes must be a whole number of at least 1"),
    (["N=4", "T=0.5"], "T=0.5: the number of threads per process must be a whole number of at least 1"),
])
def test_values_that_cannot_be_are_refused(items: list[str], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_assignments(items)
    assert str(caught.value).startswith(message)


def test_param_names() -> None:
    assert parse_param_names(["N=n", "S=steps"]) == {"N": "n", "S": "steps"}
    # C lvalues where real codes keep their sizes, in one spelling
    assert parse_param_names(["N=cmd.nx", "M=in -> particles", "L=sizes[ 0 ]", "K=cfg.grid.n"]) == {
        "N": "cmd.nx", "M": "in.particles", "L": "sizes[0]", "K": "cfg.grid.n"}
    # an element at a variable's index, as read with fscanf(fp, "%d", &nx[lt]) (NPB MG)
    assert parse_param_names(["n=nx[ lt ]"]) == {"n": "nx[lt]"}
    for bad in ("N=cmd.", "N=2n", "N=a[i+1]", "N=a[2i]", "N=n+1", "N", "1N=n", "N=f(x)"):
        with pytest.raises(UsageError, match="expected SYMBOL=variable"):
            parse_param_names([bad])
