"""perfeq.fitting.scaling: statistical timing models of measured runs (Strohmaier), ``perfeq scaling``.

``data`` reads and prepares the runs, ``functions`` are the characteristic functions of P,
``analysis`` fits the individual models, ``joint`` the joint work/power product model, ``report``
prints and plots them; ``commands`` is the subcommand.  Self-contained: needs no instrumented run.
"""
