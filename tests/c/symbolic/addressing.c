/* Address arithmetic and divisions.  In each iteration of the inner loop, the integer operations
 * marked "addr" compute an address or an index (in a subscript, pointer arithmetic, an integer
 * scalar set afresh from scalars by + - *), those marked "iop" do not; the divisions marked "div" are
 * kept by the compiler (a variable divisor, or a floating constant not a power of two), those marked
 * "mul" become a multiplication or a shift.  argv: n [reps] */
#include <mpi.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

static double sweep(const double *x, double *z, int n, int w, double h, long *count)
{
    double acc = 0.0;
    long cnt = 0;
    int k2;
    for (int i = 0; i < n / w; i++) {
        for (int j = 0; j < w; j++) {
            int k = i * w + j;                 /* addr 2 */
            k2 = k - 1;                        /* addr 1 */
            cnt = cnt + 1;                     /* iop 1 */
            z[k] = x[i * w + j] / h;           /* addr 2, div 1 */
            z[k] += *(x + k) / 3.0;            /* addr 1, div 1 */
            z[k] += x[k2 < 0 ? 0 : k2] / 2.0;  /* mul 1 */
            z[k] += (double)(j / 4) + (double)(j % w);  /* mul 1, div 1 */
            acc += z[k];
        }
    }
    *count = cnt;
    return acc;
}

static double walk(const double *x, int n, int w)
{
    double s = 0.0;
    for (const double *p = x; p < x + n; p += w)  /* addr 1 per test, addr 1 per step */
        s += *p / -2.0 + *p / 8u + sqrt(*p) + exp(-*p);  /* mul 2, a square root (div), math 1 */
    return s;
}

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 64, reps = argc > 2 ? atoi(argv[2]) : 1;
    long count = 0;
    double sum = 0.0, total = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *x = malloc((size_t)n * sizeof(double)), *z = malloc((size_t)n * sizeof(double));
    if (!x || !z)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < n; i++)
        x[i] = (i % 17) + rank;
    for (int r = 0; r < reps; r++)
        sum += sweep(x, z, n, 8, 0.75 + r, &count) + walk(x, n, 8);
    MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %.6e count %ld\n", total, count);
    free(x);
    free(z);
    MPI_Finalize();
    return 0;
}
