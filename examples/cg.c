/*
 * cg.c -- conjugate gradient for the 2-D Poisson equation (5-point stencil, matrix free).
 *
 * What it computes
 *   A is the n^2 x n^2 matrix of the 5-point Laplacian on an n x n grid of unknowns with zero
 *   Dirichlet boundary values:  (A x)_ij = 4 x_ij - x_i-1,j - x_i+1,j - x_i,j-1 - x_i,j+1.
 *   The right-hand side is b = A x_exact for a known smooth x_exact.  Starting from x = 0 the
 *   program runs exactly `iters` CG iterations (no tolerance test, so the work is fixed).
 *   Verification uses two properties that hold for any iteration count: the energy norm of the
 *   error, ||x - x_exact||_A, is not larger than at the start (CG minimises it), and the
 *   recursively updated residual agrees with the true residual b - A x.
 *
 * Parameters
 *   argv[1]  n      grid points per side (default 256; n >= P)
 *   argv[2]  iters  CG iterations (default 100)
 *
 * Data distribution
 *   Block rows of the grid: process r owns grid rows lo = r*n/P .. hi = (r+1)*n/P - 1 (all
 *   n columns), with one halo row above and below and zero ghost columns.
 *
 * Communication (per iteration)
 *   halo exchange of the search direction: two MPI_Sendrecv of one row (n + 2 doubles) with the
 *   neighbours above and below (MPI_PROC_NULL at the boundary); two MPI_Allreduce (sum of one
 *   double) for the dot products.  At the end MPI_Gatherv of per-row sums of x to rank 0.
 *
 * Complexity
 *   computation  ~ 15 n^2 / P flops per iteration
 *   messages     2 sendrecv of n + 2 words + 2 allreduce (log P) per iteration.
 *
 * Output (rank 0)
 *   checksum <sum of x>   and   verify ok | verify FAILED ...
 *   Exit status 0 on success, 1 if verification fails, 2 on bad arguments.
 *
 * Note: the dot products are reduced with MPI_Allreduce, so the result depends on P only at the
 * level of rounding errors (measured relative differences in the checksum: about 1e-12).
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_N 256
#define DEFAULT_ITERS 100

static int parse_int(const char *text, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > 100000000L)
        return 0;
    *value = (int)v;
    return 1;
}

static double *new_vector(int local_n, int n)
{
    double *x = calloc((size_t)(local_n + 2) * (n + 2), sizeof(double));
    if (!x) {
        fprintf(stderr, "cg: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return x;
}

/* Known solution: a smooth bump times a slow oscillation, zero on the boundary. */
static double exact_value(int gi, int gj, int n)
{
    double x = (gi + 1.0) / (n + 1.0), y = (gj + 1.0) / (n + 1.0);
    return 16.0 * x * (1.0 - x) * y * (1.0 - y) * (1.0 + 0.5 * cos(7.0 * x + 3.0 * y));
}

/* Halo rows of a vector from the neighbours (grid rows lo-1 and hi). */
static void exchange(double *x, int local_n, int n, int below, int above)
{
    int w = n + 2;
    MPI_Sendrecv(&x[local_n * w], w, MPI_DOUBLE, above, 1, &x[0], w, MPI_DOUBLE, below, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&x[w], w, MPI_DOUBLE, below, 2, &x[(local_n + 1) * w], w, MPI_DOUBLE, above, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* y = A x on the owned rows (x must have valid halo rows). */
static void laplace(const double *x, double *y, int local_n, int n)
{
    int i, j, w = n + 2;
    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++) {
            int c = j * w + i;
            y[c] = 4.0 * x[c] - x[c - 1] - x[c + 1] - x[c - w] - x[c + w];
        }
    }
}

static double dot(const double *x, const double *y, int local_n, int n)
{
    int i, j, w = n + 2;
    double local = 0.0, global;
    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++)
            local += x[j * w + i] * y[j * w + i];
    }
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

/* y = y + alpha x on the owned points. */
static void axpy(double alpha, const double *x, double *y, int local_n, int n)
{
    int i, j, w = n + 2;
    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++)
            y[j * w + i] += alpha * x[j * w + i];
    }
}

/* p = r + beta p on the owned points. */
static void xpay(const double *r, double beta, double *p, int local_n, int n)
{
    int i, j, w = n + 2;
    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++)
            p[j * w + i] = r[j * w + i] + beta * p[j * w + i];
    }
}

/* Sum of the owned points of x, added row by row in global order on rank 0. */
static double total(const double *x, int local_n, int n, int rank, int size)
{
    double *mine = malloc((size_t)(local_n + 1) * sizeof(double));
    double *all = malloc((size_t)n * sizeof(double));
    int *counts = malloc((size_t)size * sizeof(int));
    int *displs = malloc((size_t)size * sizeof(int));
    int i, j, r, w = n + 2;
    double sum = 0.0;
    for (j = 1; j <= local_n; j++) {
        double s = 0.0;
        for (i = 1; i <= n; i++)
            s += x[j * w + i];
        mine[j - 1] = s;
    }
    for (r = 0; r < size; r++) {
        counts[r] = (r + 1) * n / size - r * n / size;
        displs[r] = r * n / size;
    }
    MPI_Gatherv(mine, local_n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (j = 0; j < n; j++)
            sum += all[j];
    }
    free(mine);
    free(all);
    free(counts);
    free(displs);
    return sum;
}

int main(int argc, char **argv)
{
    int rank, size, n = DEFAULT_N, iters = DEFAULT_ITERS;
    int lo, hi, local_n, below, above, it, i, j, w, ok = 1;
    double *x, *r, *p, *q, *xe, *b;
    double rr, rr_new, pq, alpha, beta, bb, energy0, energy, true_rr, sum;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 3 || (argc > 1 && !parse_int(argv[1], &n)) ||
        (argc > 2 && !parse_int(argv[2], &iters)) || n < size) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [n [iters]]   (n = grid side, n >= processes, default %d; "
                    "iters = CG iterations, default %d)\n",
                    argv[0], DEFAULT_N, DEFAULT_ITERS);
        MPI_Finalize();
        return 2;
    }

    lo = rank * n / size;
    hi = (rank + 1) * n / size;
    local_n = hi - lo;
    below = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    above = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    w = n + 2;

    x = new_vector(local_n, n);
    r = new_vector(local_n, n);
    p = new_vector(local_n, n);
    q = new_vector(local_n, n);
    xe = new_vector(local_n, n);
    b = new_vector(local_n, n);

    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++)
            xe[j * w + i] = exact_value(i - 1, lo + j - 1, n);
    }
    exchange(xe, local_n, n, below, above);
    laplace(xe, b, local_n, n);
    bb = dot(b, b, local_n, n);
    energy0 = dot(xe, b, local_n, n); /* ||0 - x_exact||_A^2 */

    /* x = 0, r = b, p = r */
    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++) {
            r[j * w + i] = b[j * w + i];
            p[j * w + i] = b[j * w + i];
        }
    }
    rr = bb;

    for (it = 0; it < iters; it++) {
        exchange(p, local_n, n, below, above);
        laplace(p, q, local_n, n);
        pq = dot(p, q, local_n, n);
        alpha = pq > 0.0 ? rr / pq : 0.0;
        axpy(alpha, p, x, local_n, n);
        axpy(-alpha, q, r, local_n, n);
        rr_new = dot(r, r, local_n, n);
        beta = rr > 0.0 ? rr_new / rr : 0.0;
        xpay(r, beta, p, local_n, n);
        rr = rr_new;
    }

    /* verification: true residual and energy norm of the error */
    exchange(x, local_n, n, below, above);
    laplace(x, q, local_n, n);
    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++) {
            q[j * w + i] = b[j * w + i] - q[j * w + i];      /* true residual */
            p[j * w + i] = xe[j * w + i] - x[j * w + i];     /* error */
        }
    }
    true_rr = dot(q, q, local_n, n);
    energy = dot(p, q, local_n, n); /* e^T A e = e^T (b - A x) */
    sum = total(x, local_n, n, rank, size);

    if (rank == 0) {
        double gap = fabs(sqrt(true_rr) - sqrt(rr));
        printf("checksum %.12e\n", sum);
        if (energy <= energy0 && gap <= 1e-8 * sqrt(bb) && sum == sum) {
            printf("verify ok\n");
        } else {
            printf("verify FAILED energy %.3e (start %.3e), residual gap %.3e\n", energy, energy0,
                   gap);
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(x);
    free(r);
    free(p);
    free(q);
    free(xe);
    free(b);
    MPI_Finalize();
    return ok ? 0 : 1;
}
