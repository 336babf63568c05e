"""perfeq.fitting.ranking: benchmark-weighted prediction and machine ranking (Chen et al.), ``perfeq rank``.

``tables`` reads benchmark, run-time and profile tables; ``methods`` ranks machines and counts
thresholded inversions; ``commands`` is the subcommand.  Self-contained: imports no other part of
fitting.
"""
