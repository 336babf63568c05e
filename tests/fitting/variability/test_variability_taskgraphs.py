"""Regular task graphs (section 5): extrapolation from 10 stages against a full simulation of 100."""

from __future__ import annotations

import pytest

from perfeq.fitting.variability.distributions import erlang
from perfeq.fitting.variability.taskgraphs import (
    extrapolate,
    global_sync,
    global_sync_exact,
    mesh,
    ring,
    simulate_stages,
)

ERLANG_2 = erlang(2, 1.0)


@pytest.mark.parametrize("graph", [global_sync(16), ring(16), mesh(4, 4)], ids=["global", "ring", "mesh"])
def test_ten_stages_extrapolate_to_a_hundred_within_one_percent(graph):
    estimate = extrapolate(graph, ERLANG_2, 100, simulated=10, max_simulated=10, draws=20_000, seed=1)
    assert estimate.simulated == 10
    full = simulate_stages(graph, ERLANG_2, 100, draws=20_000, seed=2)
    assert estimate.mean == pytest.approx(full.means[-1], rel=0.01)
    assert estimate.variance == pytest.approx(full.variances[-1], rel=0.1)


def test_global_synchronisation_adds_independent_maxima():
    mean, variance = global_sync_exact(ERLANG_2, 16, 100)
    full = simulate_stages(global_sync(16), ERLANG_2, 30, draws=20_000, seed=4)
    assert full.means[-1] == pytest.approx(mean * 30 / 100, rel=0.003)
    assert full.variances[-1] == pytest.approx(variance * 30 / 100, rel=0.05)


def test_local_synchronisation_is_faster_than_global():
    """A halo exchange waits for 3 tasks, an allreduce for all 16: the increment per stage is smaller."""
    local = extrapolate(ring(16), ERLANG_2, 100, draws=10_000)
    collective = extrapolate(global_sync(16), ERLANG_2, 100, draws=10_000)
    assert local.increment_mean < collective.increment_mean
    assert local.stationary and collective.stationary


def test_wide_ring_needs_more_stages_to_become_stationary():
    """On a 64-column ring the increments still fall after 10 stages: more stages are simulated."""
    estimate = extrapolate(ring(64), ERLANG_2, 100, simulated=10, draws=20_000)
    assert estimate.simulated > 10


def test_graph_shapes():
    assert ring(5).predecessors[0] == (0, 1, 4)
    assert mesh(2, 3).predecessors[4] == (1, 3, 4, 5)
    assert global_sync(3).is_global and not ring(3).predecessors[0] == (0, 1)
    with pytest.raises(ValueError):
        ring(2)
