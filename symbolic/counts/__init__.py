"""Symbolic execution counts per block, loop, region and MPI call (symbolic stage, paper 3.1).

Part of perfeq stage 3 (symbolic/), between the run's observation (observe.py) and the model
(model.py).  For every call-graph context of an instrumentation run, the executions of each basic
block are derived as sympy expressions in the problem-size parameters, P, the rank and the OpenMP
thread count T:

* a block's count relative to its anchor block (entry: once per invocation; loop body: once per
  iteration; then/else: the true ratio; after a control statement: as often as the block before);
* sums over the iteration spaces of the enclosing loops (triangular loops are summed exactly);
* the invocations of a context from its parent's call-site block, with the callee's parameters
  replaced by the call's argument expressions.

Each loop's trip count follows the paper's three steps: symbolic from its bounds, else a fit of the
measured trips to the problem size ("an integer multiple"), else the measured constant.  Every
symbolic count is checked against the run's counters; one that does not reproduce them falls back.

Modules: core (:class:`CountModel`: blocks, invocations, call sites), trips (loop trip counts and
sums), branches (conditionals, mispredicted branches), comm (MPI call sites and the message
functions), base (the state, measured counts and fits).
"""

from perfeq.symbolic.counts.base import FIT_TOLERANCE, ContextCounts, Fallback
from perfeq.symbolic.counts.core import CountModel

__all__ = ["FIT_TOLERANCE", "ContextCounts", "CountModel", "Fallback"]
