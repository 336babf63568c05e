/*
 * gram.c -- Gram matrix and column sums of K distributed vectors (the inner products of block
 * Krylov and least-squares solvers, and of the statistics of a data matrix).
 *
 * What it computes
 *   K = 8 vectors v_0 .. v_7 of length n with integer values
 *       v_a[i] = ((a + 1) (i + 3)) mod 7 - 3,
 *   their Gram matrix G_ab = sum_i v_a[i] v_b[i] (a <= b, one dot product each) and column sums
 *   m_a = sum_i v_a[i], `steps` times (a benchmark loop; the vectors are scaled by -1 between
 *   steps, which leaves G unchanged and flips m).  Every partial sum is an integer below 2^53, so
 *   the result is exact in double precision whatever the number of processes.  The checksum
 *   S = sum_{a<=b} (a + 2b + 1) G_ab + sum_a (a + 1) m_a  is verified against a closed form: the
 *   values depend on i mod 7 only, so G_ab = sum_r c_r f_a(r) f_b(r) with c_r the number of
 *   indices i < n with i mod 7 = r.
 *
 * Parameters
 *   argv[1]  n      vector length (default 100000)
 *   argv[2]  steps  number of Gram matrices computed (default 1)
 *
 * Data distribution
 *   Block rows: process r owns entries lo = r*n/P .. hi = (r+1)*n/P - 1 of every vector.
 *
 * Communication (per step)
 *   one MPI_Allreduce of the K (K + 1) / 2 + K partial sums (every rank then holds G and m).
 *
 * Complexity
 *   computation  (K (K + 1) / 2 + K) n / P chained additions per step (each waits for the one
 *                before: a dot product runs at the latency of the floating-point addition)
 *   messages     one allreduce of K (K + 3) / 2 words per step, latency O(log P).
 *
 * Output (rank 0)
 *   checksum <S>   and   verify ok | verify FAILED ...
 *   Exit status 0 on success, 1 if verification fails, 2 on bad arguments.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define K 8
#define PAIRS (K * (K + 1) / 2)
#define DEFAULT_N 100000
#define DEFAULT_STEPS 1

static int parse_int(const char *text, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > 100000000L)
        return 0;
    *value = (int)v;
    return 1;
}

static int entry(int a, long i)
{
    return (int)(((a + 1) * (i + 3)) % 7) - 3;
}

static double dot(const double *x, const double *y, int m)
{
    double s = 0.0;
    int i;
    for (i = 0; i < m; i++)
        s += x[i] * y[i];
    return s;
}

static double sum(const double *x, int m)
{
    double s = 0.0;
    int i;
    for (i = 0; i < m; i++)
        s += x[i];
    return s;
}

static void negate(double *x, int m)
{
    int i;
    for (i = 0; i < m; i++)
        x[i] = -x[i];
}

/* Partial Gram matrix (packed upper triangle, row by row) and column sums of the owned entries. */
static void partial(double *const *v, int m, double *out)
{
    int a, b, k = 0;
    for (a = 0; a < K; a++)
        for (b = a; b < K; b++)
            out[k++] = dot(v[a], v[b], m);
    for (a = 0; a < K; a++)
        out[PAIRS + a] = sum(v[a], m);
}

/* The checksum's closed form, in exact integer arithmetic: O(7 K^2). */
static long long expected_checksum(int n, int steps)
{
    long long count[7], total = 0;
    int r, a, b;
    for (r = 0; r < 7; r++)
        count[r] = n / 7 + (r < n % 7);
    for (a = 0; a < K; a++) {
        for (b = a; b < K; b++) {
            long long g = 0;
            for (r = 0; r < 7; r++)
                g += count[r] * entry(a, r) * entry(b, r);
            total += (long long)(a + 2 * b + 1) * g;
        }
    }
    if (steps % 2) { /* the column sums of the last step: +m for odd steps, -m for even */
        for (a = 0; a < K; a++) {
            long long m = 0;
            for (r = 0; r < 7; r++)
                m += count[r] * entry(a, r);
            total += (long long)(a + 1) * m;
        }
    } else {
        for (a = 0; a < K; a++) {
            long long m = 0;
            for (r = 0; r < 7; r++)
                m += count[r] * entry(a, r);
            total -= (long long)(a + 1) * m;
        }
    }
    return total;
}

int main(int argc, char **argv)
{
    int rank, size, n = DEFAULT_N, steps = DEFAULT_STEPS;
    int lo, hi, m, a, b, k, step, ok = 1;
    long i;
    double *v[K], mine[PAIRS + K], all[PAIRS + K], local, checksum;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 3 || (argc > 1 && !parse_int(argv[1], &n)) ||
        (argc > 2 && !parse_int(argv[2], &steps))) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [n [steps]]   (n = vector length, default %d; steps = repetitions, "
                    "default %d)\n",
                    argv[0], DEFAULT_N, DEFAULT_STEPS);
        MPI_Finalize();
        return 2;
    }

    lo = (int)((long)rank * n / size);
    hi = (int)((long)(rank + 1) * n / size);
    m = hi - lo;
    for (a = 0; a < K; a++) {
        v[a] = malloc((size_t)m * sizeof(double) + 1);
        if (!v[a]) {
            fprintf(stderr, "gram: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (i = 0; i < m; i++)
            v[a][i] = entry(a, lo + i);
    }

    for (step = 0; step < steps; step++) {
        if (step > 0)
            for (a = 0; a < K; a++)
                negate(v[a], m);
        partial(v, m, mine);
        MPI_Allreduce(mine, all, PAIRS + K, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }

    local = 0.0;
    k = 0;
    for (a = 0; a < K; a++)
        for (b = a; b < K; b++)
            local += (a + 2 * b + 1) * all[k++];
    for (a = 0; a < K; a++)
        local += (a + 1) * all[PAIRS + a];
    checksum = local; /* the same on every rank: all[] is the allreduced sum */

    if (rank == 0) {
        long long expected = expected_checksum(n, steps);
        printf("checksum %.12e\n", checksum);
        if (checksum == (double)expected) {
            printf("verify ok\n");
        } else {
            printf("verify FAILED expected %lld\n", expected);
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    for (a = 0; a < K; a++)
        free(v[a]);
    MPI_Finalize();
    return ok ? 0 : 1;
}
