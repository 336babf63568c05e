"""Shared test helpers: where the fixtures are, and the small routines several test files need.

Test files live in subfolders that mirror the packages (tests/instrument for perfeq.instrument,
tests/fitting/regression for perfeq.fitting.regression, ...); C programs are under tests/c and data
files under tests/data.  Everything is found from this file's own path.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
C_PROGRAMS = TESTS / "c"
DATA = TESTS / "data"
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
