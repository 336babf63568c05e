double b_max(const double *x, int n) { double m = x[0]; for (int i = 1; i < n; i++) if (x[i] > m) m = x[i]; for (int j = 0; j < n; j++) m += 0; return m; }
