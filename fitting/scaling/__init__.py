"""perfeq.fitting.scaling: statistical timing models of measured runs (Strohmaier), ``perfeq scaling``.

``data`` reads the runs, ``observations`` prepares them (selection, Eq. 11's scale, outliers),
``functions`` are the characteristic functions of P, ``analysis`` runs the whole analysis: the
``individual`` models per pair and the ``joint`` work/power product model; ``tables``, ``plots`` and
``report`` print, plot and write them; ``commands`` is the subcommand.  Self-contained: needs no
instrumented run.
"""
