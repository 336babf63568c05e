"""perfeq.instrument: the source-to-source pass (stage 1).

Parses a preprocessed copy of a C file with pycparser only for analysis, collects frozen descriptor
records (loops, blocks, shapes, conditionals, parallel regions, communication, calls, parameters)
and inserts hooks into the original source text.
"""
