"""perfeq.fitting.variability: run-time variability of parallel tasks (Fleischmann et al. 1994, GIANT).

``polynomials`` is the algebra of theta-exponential polynomials; ``distributions`` the task times built
on it (series, parallel, truncation, fits to moments); ``extremes`` the large-P maximum (Gumbel,
Weibull); ``scheduling`` static and dynamic scheduling of n tasks on p processors, with communication;
``taskgraphs`` regular task graphs extrapolated from a few stages; ``montecarlo`` the checks by
simulation; ``specs`` reads a distribution from the command line; ``commands`` is ``perfeq tasks``.
Stands alone in fitting: it imports no other room.
"""
