"""The model stage never crashes (issue 19): models built from randomised traces either work, with
their fallbacks and self-check, or stop with one PerfeqError line; never another exception."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import C_PROGRAMS, instrumented_program
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfeq.errors import PerfeqError
from perfeq.symbolic.model import build_model


@pytest.fixture(scope="module")
def bound_traces(tmp_path_factory):
    """Two real traces of tests/c/real/bounds.c (every loop form of real codes) and their records."""
    folder = tmp_path_factory.mktemp("fuzz")
    run = instrumented_program(C_PROGRAMS / "real" / "bounds.c", folder)
    traces = [run(1, f"{n}.trace", n) for n in (20, 31)]
    return folder, [[json.loads(line) for line in t.read_text().splitlines()] for t in traces]


def _perturb(records: list[dict], rng: random.Random, how: str) -> list[dict]:
    """A copy of a trace's records with counters, values or parameters changed (as data could)."""
    out = json.loads(json.dumps(records))
    for record in out:
        if record["record"] == "counters" and how in ("counters", "all"):
            record["counts"] = [[slot, rng.choice([0, 1, count, 2 * count + 1, 10**9, rng.randint(0, 10**4)])]
                                for slot, count in record["counts"]]
        elif record["record"] == "values" and how in ("values", "all"):
            for value in record["values"]:
                x = rng.choice([0.0, -1.0, 1e12, value["sum"], 0.5])
                value.update(first=x, last=x, min=x, max=x, sum=x * value["n"])
        elif record["record"] in ("params", "header") and "params" in record and how in ("params", "all"):
            record["params"] = {k: rng.choice([0, 1, 2, v, -v, 10**6]) for k, v in record["params"].items()}
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), how=st.sampled_from(["counters", "values", "params", "all"]))
def test_models_from_randomised_traces_never_crash(bound_traces, seed, how):
    folder, traces = bound_traces
    rng = random.Random(seed)
    paths = []
    for i, records in enumerate(traces):
        path = folder / f"fuzz{i}.trace"
        path.write_text("".join(json.dumps(r) + "\n" for r in _perturb(records, rng, how)))
        paths.append(path)
    try:
        model = build_model(paths)
    except PerfeqError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert isinstance(model.self_check, dict) and "checks" in model.self_check
    json.dumps(model.to_dict())  # the model file can be written
    Path(folder / "fuzz.model.json").write_text(json.dumps(model.to_dict()))
