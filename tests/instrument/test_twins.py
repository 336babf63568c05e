"""The headers of leaf functions' twins (instrument/collect/twins.py), and the functions that get none."""

from __future__ import annotations

import pytest
from pycparser import c_ast, c_parser

from perfeq.instrument.collect.twins import SLOT_PARAMETERS, twin_header

FUNCTIONS = """
typedef struct { int a; } S;
float dist(float *p, float *q, int n) { float s = 0; int i; for (i = 0; i < n; i++) s += p[i] - q[i]; return s; }
static inline double one(void) { return 1.0; }
int (*pick(int x))(double) { return 0; }
S copy(const S *s, int n) { return *s; }
void fill(int n, double a[n][n]) { a[0][0] = n; }
int sum(int n, ...) { return n; }
int counter(int n) { static int c; c += n; return c; }
const char *name(int n) { return n ? __func__ : ""; }
int old(a) int a; { return a; }
unsigned long open_list() { return 1; }
"""


@pytest.fixture(scope="module")
def headers() -> dict[str, str | None]:
    ast = c_parser.CParser().parse(FUNCTIONS)
    return {ext.decl.name: twin_header(ext) for ext in ast.ext if isinstance(ext, c_ast.FuncDef)}


@pytest.mark.parametrize(("name", "params"), [
    ("dist", "float perfeq__twin__dist({slots}, float *p, float *q, int n)"),
    ("one", "double perfeq__twin__one({slots})"),
    ("pick", "int (*perfeq__twin__pick({slots}, int x))(double)"),
    ("copy", "S perfeq__twin__copy({slots}, const S *s, int n)"),
    ("fill", "void perfeq__twin__fill({slots}, int n, double a[n][n])"),
])
def test_a_twin_takes_the_slots_first_and_is_static(headers, name: str, params: str) -> None:
    assert headers[name] == "static __attribute__((unused)) " + params.format(slots=SLOT_PARAMETERS)


@pytest.mark.parametrize("name", ["sum", "counter", "name", "old", "open_list"])
def test_no_twin_where_a_copy_would_behave_otherwise(headers, name: str) -> None:
    """Variadic; a static local (the copy's own); __func__ (the copy's name); K&R and f() (calls
    may pass arguments the prototype does not list)."""
    assert headers[name] is None
