"""perfeq.runtime: the C runtime library, ``perfeq run``, the trace reader and the call graph (stage 2)."""
