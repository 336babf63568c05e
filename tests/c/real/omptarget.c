/* OpenMP offload constructs (UoB-HPC's openmp-tutorial solutions, found by the session 37 helper):
   `omp target` with `omp loop`, `omp target teams distribute parallel for`, a `target data` region
   and `target enter/exit data`.  Hooks inside an offloaded statement use the host's thread-local
   state, which GCC refuses ("threadprivate variable used in target region": no instrumented build),
   or would write host memory from a device; such statements are left as written and warned about.
   Without an offload target the compiler runs them on the host.  Usage: omptarget N */
#include <stdio.h>
#include <stdlib.h>

static void step(int n, const double *restrict u, double *restrict v)
{
#pragma omp target
#pragma omp loop collapse(2)
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < 4; ++i)
            v[j] = 2.0 * u[j] + i;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256;
    double *u = malloc(sizeof(double) * (size_t)n), *v = malloc(sizeof(double) * (size_t)n), sum = 0.0;
    for (int i = 0; i < n; i++)
        u[i] = i;
#pragma omp target enter data map(to: u[0:n], v[0:n])
    for (int t = 0; t < 10; t++)
        step(n, u, v);
#pragma omp target exit data map(from: v[0:n])
#pragma omp target data map(tofrom: u[0:n])
    {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            u[i] = u[i] * 0.5;
    }
    for (int i = 0; i < n; i++)
        sum += u[i] + v[i];
    printf("%g %g\n", v[n - 1], sum);
    free(u);
    free(v);
    return 0;
}
