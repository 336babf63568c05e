/* Work done in `omp task`s that other threads of the team run (KASTORS jacobi block-taskdep: tasks
   created under omp parallel + omp master).  The task bodies counted through the creating thread's
   counter slab, which the task captures: a task run by another thread incremented it while its
   owner did too, and counts were lost (ops_total at n = 1024 4.31e7 on one thread, 2.60e7 on two).
   Tasks with braces, a task whose body is a loop, and tasks created in a function called from the
   parallel region (orphaned).  Usage: omptask N (a multiple of 4) */
#include <stdio.h>
#include <stdlib.h>

static void fill_rows(double *a, int n, int b)
{
    int i;
    for (i = 0; i < n; i += b) {
#pragma omp task firstprivate(i)
        {
            int ii, jj;
            for (ii = i; ii < i + b; ++ii)
                for (jj = 0; jj < n; ++jj)
                    a[(size_t)ii * n + jj] += 1.0;
        }
    }
#pragma omp taskwait
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64, b = 4, i, j, ii, jj;
    double *a = malloc((size_t)n * n * sizeof *a), *r = calloc((size_t)n, sizeof *r);
#pragma omp parallel
#pragma omp master
    for (j = 0; j < n; j += b)
        for (i = 0; i < n; i += b) {
#pragma omp task firstprivate(i, j) private(ii, jj)
            {
                for (jj = j; jj < j + b; ++jj)
                    for (ii = i; ii < i + b; ++ii)
                        a[(size_t)ii * n + jj] = 0.5 * ii + jj;
            }
        }
#pragma omp parallel
    {
#pragma omp single
        {
            for (i = 0; i < n; i++)
#pragma omp task firstprivate(i)
                for (int k = 0; k < n; k++)
                    r[i] += a[(size_t)i * n + k];
        }
#pragma omp single
        fill_rows(a, n, b);
    }
    double s = 0;
    for (i = 0; i < n; i++) s += r[i];
    for (i = 0; i < n * n; i++) s += a[i];
    printf("%.6g\n", s);
    free(a);
    free(r);
    return 0;
}
