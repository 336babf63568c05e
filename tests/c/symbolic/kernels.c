/* Symbolic-count test program: triangular and strided loops, a helper called from two sites with
 * different arguments, a rank condition, a multiplicative loop, an early return, and MPI collectives.
 * argv: n (size), steps */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double sweep(const double *a, int count, int stride)
{
    double s = 0.0;
    int i;
    for (i = 0; i < count; i += stride)
        s += a[i];
    return s;
}

static double triangle(double *a, int n)
{
    double s = 0.0;
    int i, j;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            s += a[i] * a[j] / (double)n;
    return s;
}

/* The code after an early return runs only where the branch was not taken (not on rank 0). */
static double early(const double *a, int count, int rank)
{
    double s = 0.0;
    int i;
    if (rank == 0)
        return s;
    for (i = 0; i < count; i++)
        s += 0.5 * a[i];
    return s;
}

int main(int argc, char **argv)
{
    int n = 64, steps = 3, rank, size, lo, hi, local_n, t, k, width;
    double *a, local = 0.0, total = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        n = atoi(argv[1]);
    if (argc > 2)
        steps = atoi(argv[2]);
    lo = rank * n / size;
    hi = (rank + 1) * n / size;
    local_n = hi - lo;
    a = malloc((size_t)n * sizeof(double));
    for (k = 0; k < n; k++)
        a[k] = (double)((k * 7) % 13);
    for (t = 0; t < steps; t++) {
        local += sweep(a + lo, local_n, 1);
        local += sweep(a, n, 2);
        if (rank == 0)
            local += triangle(a, local_n);
        local += early(a + lo, local_n, rank);
        for (width = 1; width < n; width *= 2)
            local += a[width];
        MPI_Bcast(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("checksum %.6e\n", total);
    free(a);
    MPI_Finalize();
    return 0;
}
