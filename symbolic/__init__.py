"""perfeq.symbolic: stage 3, symbolic operation counts chi(N, P) per basic block with sympy.

``observe`` arranges a trace's call graph (perfeq.runtime.callgraph) with the units' descriptors
(perfeq.instrument.descriptors); ``counts/`` derives every block's executions from it (``resolve``,
``cexpr``, ``symbols``), ``chi`` assembles them into costs, ``model`` writes and evaluates the model
file, ``linearize`` turns loop-nest footprints into cache misses with the cache description
(``machine``), ``messages`` holds the MPI message algorithms, ``measured`` what a run actually
counted; ``commands``: perfeq callgraph, counts, model, equation and machine.
"""
