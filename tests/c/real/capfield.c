/* A convergence loop capped by a field of a settings struct passed by pointer (UoB-HPC TeaLeaf's
   cg_driver: for (tt = 0; tt < settings->max_iters; ++tt) { ...; if (fabs(*error) < settings->eps)
   break; }).  Its iterations are data (about 1.15 n here), fitted over the runs; at a size where
   the cap binds, the fit alone overshoots: Min(fit, max_iters) needs the header's bound, which is
   a parameter of the solver's caller, not of the solver.  The settings are a struct initialised
   by a brace list holding the converted arguments: its instrumented build failed ("aggregate value
   used where a floating-point was expected": the whole struct recorded as one parameter).
   Usage: capfield N MAXITERS */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int n, max_iters;
    double eps;
} Settings;

static double sweep(int n, double *x, double factor)
{
    for (int i = 0; i < n; i++)
        x[i] *= factor;
    return x[0];
}

static int solve(const Settings *settings, double *x)
{
    int it;
    double factor = 1.0 - 2.0 / settings->n;
    for (it = 0; it < settings->max_iters; ++it) {
        double error = sweep(settings->n, x, factor);
        if (error < settings->eps)
            break;
    }
    return it;
}

int main(int argc, char **argv)
{
    Settings settings = {argc > 1 ? atoi(argv[1]) : 20, argc > 2 ? atoi(argv[2]) : 60, 0.1};
    double *x = malloc((size_t)settings.n * sizeof *x);
    for (int i = 0; i < settings.n; i++)
        x[i] = 1.0;
    int iterations = solve(&settings, x);
    printf("%d iterations, x[0] = %.6f\n", iterations, x[0]);
    free(x);
    return 0;
}
