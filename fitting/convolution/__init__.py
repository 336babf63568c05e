"""perfeq.fitting.convolution: fit-free prediction from a probe file (Snavely et al. 2002).

probecosts.py (the one owner of costs from a ``perfeq-probes`` file) -> convolve.py (the model's
application signature priced per block, rank and level) -> report.py (the per-block table).
"""
