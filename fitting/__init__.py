"""perfeq.fitting: machine costs beta by regression, predictions with intervals, sensitivity, plots (stage 4)."""
