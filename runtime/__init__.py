"""perfeq.runtime: stage 2, the small instrumented run.

``c/`` (the C library linked into instrumented programs), ``mpi/`` (the MPI call table and the
wrapper generator), ``build`` (compiles the library), ``run`` (``perfeq run``), ``trace`` (the trace
reader and merger), ``callgraph`` (the one context tree of a run) and ``probes/`` (the machine
probes of ``perfeq probe``: C sources, plan, build, curves, the ``perfeq-probes`` file).
"""
