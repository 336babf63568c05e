/* Loops of the unity build under pragmas written by the includer's macros. */
static void fill(double *x, int n)
{
    int i;
    PARALLEL_FOR(n)
    for (i = 0; i < n; i++)
        x[i] = (i % 9) * 0.5;
}

static double sum(const double *x, int n)
{
    double s = 0.0;
    int i;
    PARALLEL_SUM(s)
    for (i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}
