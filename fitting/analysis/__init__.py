"""perfeq.fitting.analysis: what a model and a machine profile say together (paper section 4).

The time equation priced over a grid (``pricing``), sensitivities d t / d beta (``sensitivity``),
breakdowns by cost and block (``breakdown``), held-out validation (``validate``, its tables, files
and plots ``validate_report``), plots (``figures``; ``probe_plots``, the curves of ``perfeq probe``)
and the HTML ``report``; ``commands``: equation-free analysis subcommands.
"""
