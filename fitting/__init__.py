"""perfeq.fitting: stage 4, from counts to seconds.

``costs`` (the one list of cost names), ``regression`` (beta by multiple regression, predictions with
intervals), ``analysis`` (pricing, sensitivity, breakdown, validation, plots, report), ``ranking``
(Chen et al.), ``scaling`` (Strohmaier) and ``variability`` (task-time distributions and scheduling,
Fleischmann et al.), each subpackage with its own ``commands``.
"""
