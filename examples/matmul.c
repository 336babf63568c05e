/*
 * matmul.c -- dense matrix multiplication C = A * B with row blocks.
 *
 * What it computes
 *   A and B are n x n integer-valued matrices with a simple structure,
 *       a_ij = ((3i + 5j) mod 11) - 3,      b_ij = ((7i + 2j) mod 13) - 4,
 *   so every entry of C and every partial sum of the checksum is an integer below 2^53 and is
 *   computed exactly in double precision, whatever the number of processes.  The product is
 *   recomputed `steps` times (a benchmark loop; B is re-assembled each time).  The checksum is
 *   the weighted sum  S = sum_ij w_i v_j c_ij  with w_i = i mod 3 + 1, v_j = j mod 5 + 1, and is
 *   verified against the closed form  S = sum_k (sum_i w_i a_ik) (sum_j v_j b_kj),  evaluated in
 *   O(n^2) exact integer arithmetic without forming C.
 *
 * Parameters
 *   argv[1]  n      matrix order (default 400)
 *   argv[2]  steps  number of multiplications (default 1)
 *
 * Data distribution
 *   Block rows: process r owns rows lo = r*n/P .. hi = (r+1)*n/P - 1 of A, B and C.
 *
 * Communication (per step)
 *   MPI_Allgatherv of the row blocks of B (every process receives all n^2 words of B);
 *   at the end one MPI_Reduce of the local checksum.
 *
 * Complexity
 *   computation  2 n^3 / P flops per step
 *   messages     one allgather per step, volume n^2 words, latency O(log P) or O(P).
 *
 * Output (rank 0)
 *   checksum <S>   and   verify ok | verify FAILED ...
 *   Exit status 0 on success, 1 if verification fails, 2 on bad arguments.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_N 400
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

static int a_entry(int i, int j)
{
    return (3 * i + 5 * j) % 11 - 3;
}

static int b_entry(int i, int j)
{
    return (7 * i + 2 * j) % 13 - 4;
}

static int row_weight(int i)
{
    return i % 3 + 1;
}

static int col_weight(int j)
{
    return j % 5 + 1;
}

/* Fill rows lo .. lo+local_n-1 of A and of B. */
static void generate(double *a, double *b_block, int lo, int local_n, int n)
{
    int i, j;
    for (i = 0; i < local_n; i++) {
        for (j = 0; j < n; j++) {
            a[(size_t)i * n + j] = (double)a_entry(lo + i, j);
            b_block[(size_t)i * n + j] = (double)b_entry(lo + i, j);
        }
    }
}

/* C_local = A_local * B, i-k-j loop order (unit stride in the innermost loop). */
static void multiply(const double *a, const double *b, double *c, int local_n, int n)
{
    int i, j, k;
    for (i = 0; i < local_n; i++) {
        for (j = 0; j < n; j++)
            c[(size_t)i * n + j] = 0.0;
        for (k = 0; k < n; k++) {
            double aik = a[(size_t)i * n + k];
            for (j = 0; j < n; j++)
                c[(size_t)i * n + j] += aik * b[(size_t)k * n + j];
        }
    }
}

static double local_checksum(const double *c, int lo, int local_n, int n)
{
    int i, j;
    double sum = 0.0;
    for (i = 0; i < local_n; i++) {
        double row = 0.0;
        for (j = 0; j < n; j++)
            row += col_weight(j) * c[(size_t)i * n + j];
        sum += row_weight(lo + i) * row;
    }
    return sum;
}

/* Closed form of the checksum in exact integer arithmetic, O(n^2). */
static long long expected_checksum(int n)
{
    int i, j, k;
    long long total = 0;
    for (k = 0; k < n; k++) {
        long long wa = 0, vb = 0;
        for (i = 0; i < n; i++)
            wa += (long long)row_weight(i) * a_entry(i, k);
        for (j = 0; j < n; j++)
            vb += (long long)col_weight(j) * b_entry(k, j);
        total += wa * vb;
    }
    return total;
}

int main(int argc, char **argv)
{
    int rank, size, n = DEFAULT_N, steps = DEFAULT_STEPS;
    int lo, hi, local_n, r, step, ok = 1;
    double *a, *b, *b_block, *c;
    int *counts, *displs;
    double mine, checksum = 0.0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 3 || (argc > 1 && !parse_int(argv[1], &n)) ||
        (argc > 2 && !parse_int(argv[2], &steps))) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [n [steps]]   (n = matrix order, default %d; steps = repetitions, "
                    "default %d)\n",
                    argv[0], DEFAULT_N, DEFAULT_STEPS);
        MPI_Finalize();
        return 2;
    }

    lo = rank * n / size;
    hi = (rank + 1) * n / size;
    local_n = hi - lo;

    a = malloc((size_t)local_n * n * sizeof(double) + 1);
    b_block = malloc((size_t)local_n * n * sizeof(double) + 1);
    c = malloc((size_t)local_n * n * sizeof(double) + 1);
    b = malloc((size_t)n * n * sizeof(double));
    counts = malloc((size_t)size * sizeof(int));
    displs = malloc((size_t)size * sizeof(int));
    if (!a || !b_block || !c || !b || !counts || !displs) {
        fprintf(stderr, "matmul: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    for (r = 0; r < size; r++) {
        int rlo = r * n / size;
        int rhi = (r + 1) * n / size;
        counts[r] = (rhi - rlo) * n;
        displs[r] = rlo * n;
    }

    generate(a, b_block, lo, local_n, n);

    for (step = 0; step < steps; step++) {
        MPI_Allgatherv(b_block, local_n * n, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE,
                       MPI_COMM_WORLD);
        multiply(a, b, c, local_n, n);
    }

    mine = local_checksum(c, lo, local_n, n);
    MPI_Reduce(&mine, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        long long expected = expected_checksum(n);
        printf("checksum %.12e\n", checksum);
        if (checksum == (double)expected) {
            printf("verify ok\n");
        } else {
            printf("verify FAILED expected %lld\n", expected);
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(a);
    free(b_block);
    free(c);
    free(b);
    free(counts);
    free(displs);
    MPI_Finalize();
    return ok ? 0 : 1;
}
