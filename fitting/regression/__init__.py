"""perfeq.fitting.regression: machine costs beta by multiple regression (paper 3.3) and predictions.

Runs CSV (``runs``) -> design matrix (``design``) -> statsmodels fit (``fit``) -> machine profile
(``profile``) -> time with confidence and prediction intervals (``predict``), with residual
``diagnostics``, text ``report``s, ``synthetic`` runs for tests, the choice among cost sets
(``costsets``) and the ``commands`` fit, machine-profile and predict.
"""
