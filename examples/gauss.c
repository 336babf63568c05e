/*
 * gauss.c -- Gaussian elimination with partial pivoting for a dense n x n system A x = b.
 *
 * What it computes
 *   A is a dense pseudo-random matrix (entries in [-1, 1) from a fixed integer hash, so every
 *   process can generate its own rows) and b = A x_exact for a known x_exact.  The system is
 *   solved by row-oriented Gaussian elimination with partial pivoting (Quinn, "Parallel
 *   Programming in C with MPI and OpenMP", ch. 12): rows are never swapped; instead the row
 *   chosen as pivot at step k is marked, and the remaining unmarked rows are eliminated against
 *   it.  Back substitution then walks the pivot rows in reverse order.  The computed x is
 *   compared with x_exact.
 *
 * Parameters
 *   argv[1]  n   order of the matrix (default 512, n >= 1)
 *
 * Data distribution
 *   Block distribution of rows: process r owns rows lo = r*n/P .. hi = (r+1)*n/P - 1,
 *   so any n works (blocks differ by at most one row).
 *
 * Communication (per elimination step k = 0 .. n-1)
 *   MPI_Allreduce(MPI_MAXLOC) of one (|a_ik|, row) pair to find the pivot row,
 *   MPI_Bcast of the pivot row (n - k + 1 doubles) from its owner.
 *   Back substitution: one MPI_Bcast of a single double per unknown.
 *
 * Complexity
 *   computation  ~ (2/3) n^3 / P flops (elimination) + n^2 / P (back substitution)
 *   messages     2n collectives of O(log P) latency each; volume ~ n^2 / 2 words broadcast.
 *
 * Output (rank 0)
 *   checksum <log|det A| + sum of x>   and   verify ok | verify FAILED <max error>
 *   Exit status 0 on success, 1 if verification fails, 2 on bad arguments.
 */
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_N 512

/* Fixed 32-bit integer hash: the pseudo-random source of the matrix (never rand()). */
static uint32_t hash2(uint32_t a, uint32_t b)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}

/* Matrix entry a_ij in [-1, 1), exactly representable (20 significant bits). */
static double matrix_entry(int i, int j)
{
    uint32_t h = hash2((uint32_t)i, (uint32_t)j) & 0xFFFFFu;
    return (double)h / 524288.0 - 1.0;
}

/* Known solution: small half-integers, exactly representable. */
static double exact_solution(int j)
{
    return (double)(j % 7) - 2.5;
}

/* Process that owns global row g under the block distribution lo = r*n/P. */
static int block_owner(int g, int n, int size)
{
    return (int)(((long)size * (g + 1) - 1) / n);
}

static int parse_int(const char *text, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > 100000000L)
        return 0;
    *value = (int)v;
    return 1;
}

/* Generate this process's rows of A and the matching entries of b = A x_exact. */
static void generate_system(double *a, double *b, int lo, int local_n, int n)
{
    int i, j;
    for (i = 0; i < local_n; i++) {
        double sum = 0.0;
        for (j = 0; j < n; j++) {
            a[(size_t)i * n + j] = matrix_entry(lo + i, j);
            sum += a[(size_t)i * n + j] * exact_solution(j);
        }
        b[i] = sum;
    }
}

/* Largest |a_ik| over this process's unmarked rows; index is the global row (or n if none). */
static void local_pivot(const double *a, const int *pivstep, int lo, int local_n, int n, int k,
                        double *value, int *index)
{
    int i;
    *value = -1.0;
    *index = n;
    for (i = 0; i < local_n; i++) {
        if (pivstep[i] < 0) {
            double mag = fabs(a[(size_t)i * n + k]);
            if (mag > *value) {
                *value = mag;
                *index = lo + i;
            }
        }
    }
}

/* Eliminate column k from every unmarked local row using the broadcast pivot row. */
static void eliminate(double *a, double *b, const int *pivstep, const double *pivot, int local_n,
                      int n, int k)
{
    int i, j;
    for (i = 0; i < local_n; i++) {
        if (pivstep[i] < 0) {
            double f = a[(size_t)i * n + k] / pivot[0];
            for (j = k + 1; j < n; j++)
                a[(size_t)i * n + j] -= f * pivot[j - k];
            b[i] -= f * pivot[n - k];
        }
    }
}

/* Remove the contribution of the just-computed unknown x_k from the rows pivoted before k. */
static void update_rhs(const double *a, double *b, const int *pivstep, int local_n, int n, int k,
                       double xk)
{
    int i;
    for (i = 0; i < local_n; i++) {
        if (pivstep[i] < k)
            b[i] -= a[(size_t)i * n + k] * xk;
    }
}

int main(int argc, char **argv)
{
    int rank, size, n = DEFAULT_N;
    int lo, hi, local_n, i, k, owner, singular = 0;
    double *a, *b, *x, *pivot;
    int *pivstep, *piv;
    double checksum, maxerr, logdet = 0.0;
    struct {
        double value;
        int index;
    } mine, best;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 2 || (argc > 1 && !parse_int(argv[1], &n))) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [n]   (n = matrix order, positive integer, default %d)\n",
                    argv[0], DEFAULT_N);
        MPI_Finalize();
        return 2;
    }

    lo = rank * n / size;
    hi = (rank + 1) * n / size;
    local_n = hi - lo;

    a = malloc((size_t)local_n * n * sizeof(double) + 1);
    b = malloc((size_t)local_n * sizeof(double) + 1);
    pivstep = malloc((size_t)local_n * sizeof(int) + 1);
    x = malloc((size_t)n * sizeof(double));
    piv = malloc((size_t)n * sizeof(int));
    pivot = malloc((size_t)(n + 1) * sizeof(double));
    if (!a || !b || !pivstep || !x || !piv || !pivot) {
        fprintf(stderr, "gauss: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    generate_system(a, b, lo, local_n, n);
    for (i = 0; i < local_n; i++)
        pivstep[i] = -1;

    /* Forward elimination. */
    for (k = 0; k < n; k++) {
        local_pivot(a, pivstep, lo, local_n, n, k, &mine.value, &mine.index);
        MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
        if (best.value <= 0.0)
            singular = 1;
        piv[k] = best.index;
        owner = block_owner(best.index, n, size);
        if (rank == owner) {
            int li = best.index - lo;
            for (i = k; i < n; i++)
                pivot[i - k] = a[(size_t)li * n + i];
            pivot[n - k] = b[li];
            pivstep[li] = k;
        }
        MPI_Bcast(pivot, n - k + 1, MPI_DOUBLE, owner, MPI_COMM_WORLD);
        logdet += log(fabs(pivot[0]));
        if (!singular)
            eliminate(a, b, pivstep, pivot, local_n, n, k);
    }

    /* Back substitution in reverse pivot order. */
    for (k = n - 1; k >= 0; k--) {
        double xk = 0.0;
        owner = block_owner(piv[k], n, size);
        if (rank == owner) {
            int li = piv[k] - lo;
            xk = b[li] / a[(size_t)li * n + k];
        }
        MPI_Bcast(&xk, 1, MPI_DOUBLE, owner, MPI_COMM_WORLD);
        x[k] = xk;
        update_rhs(a, b, pivstep, local_n, n, k, xk);
    }

    checksum = logdet;
    maxerr = 0.0;
    for (k = 0; k < n; k++) {
        double err = fabs(x[k] - exact_solution(k));
        checksum += x[k];
        if (err > maxerr || err != err)
            maxerr = err;
    }

    if (rank == 0) {
        printf("checksum %.12e\n", checksum);
        if (!singular && maxerr < 1e-6)
            printf("verify ok\n");
        else
            printf("verify FAILED max error %.3e%s\n", maxerr, singular ? " (singular)" : "");
    }

    free(a);
    free(b);
    free(pivstep);
    free(x);
    free(piv);
    free(pivot);
    MPI_Finalize();
    return (!singular && maxerr < 1e-6) ? 0 : 1;
}
