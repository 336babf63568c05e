"""perfeq: predict the run time of C data-parallel programs from one small instrumented run.

The pipeline (Clement & Quinn, Parallel Computing 23, 1997) is one subpackage per stage:
``perfeq.instrument`` (source-to-source descriptors), ``perfeq.runtime`` (C library, trace, call
graph), ``perfeq.symbolic`` (sympy operation counts chi(N, P)) and ``perfeq.fitting`` (machine costs
beta by regression, predictions with intervals, sensitivity, plots).
"""

__version__ = "0.1.0"
