"""Collect descriptors and plan insertions for one translation unit (stage 1, instrument/collect).

Read-only: walks the pycparser AST, returns frozen descriptors and the :class:`Insertion` list that
perfeq.instrument.insert applies.  unit.py -> function.py (+ loopplan, loops, conds, calls, regions,
summaries) -> walk.py (the generic AST walks).
"""

from perfeq.instrument.collect.function import FunctionCollector
from perfeq.instrument.collect.unit import Insertion, UnitCollector

__all__ = ["FunctionCollector", "Insertion", "UnitCollector"]
