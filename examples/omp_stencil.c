/*
 * omp_stencil.c -- 2-D heat equation (Laplace) by Jacobi iteration, MPI + OpenMP.
 *
 * What it computes
 *   The steady temperature of a square plate with fixed edge temperatures in [0, 1] (hot top
 *   edge, graded left and right edges, cold bottom edge), approached by `steps` Jacobi sweeps
 *       u_ij <- (u_i-1,j + u_i+1,j + u_i,j-1 + u_i,j+1) / 4
 *   on an n x n interior grid.  Every sweep runs as an OpenMP parallel loop over the rows of
 *   this process (with a max-reduction of the change); halo exchange, the global reduction and
 *   the pointer swap run serially between the parallel regions.  The checksum is formed from
 *   per-row sums (each row summed by one thread, rows added serially in global order), so it
 *   is bitwise independent of the number of threads and of processes.
 *   Verification: the discrete maximum principle (all values within the edge range [0, 1]) and
 *   the largest change per sweep never growing.
 *
 * Parameters
 *   argv[1]  n      interior grid points per side (default 256; n >= P)
 *   argv[2]  steps  Jacobi sweeps (default 100)
 *   threads: OMP_NUM_THREADS
 *
 * Data distribution
 *   Block rows: process r owns rows lo = r*n/P .. hi = (r+1)*n/P - 1 with one halo row on each
 *   side; within a process the rows are shared among the OpenMP threads (static schedule).
 *
 * Communication (per sweep)
 *   two MPI_Sendrecv of one row (n + 2 doubles) with the neighbours above and below
 *   (MPI_PROC_NULL at the plate edges) and one MPI_Allreduce (MPI_MAX) of the change, all from
 *   the master thread (MPI_THREAD_FUNNELED).  At the end MPI_Gatherv of per-row sums to rank 0.
 *
 * Complexity
 *   computation  ~ 6 n^2 / (P T) flops per sweep with T threads
 *   messages     2 sendrecv of n + 2 words + one allreduce (log P) per sweep.
 *
 * Output (rank 0)
 *   checksum <sum of u>   and   verify ok | verify FAILED ...
 *   Exit status 0 on success, 1 if verification fails, 2 on bad arguments.
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_N 256
#define DEFAULT_STEPS 100

static int parse_int(const char *text, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > 100000000L)
        return 0;
    *value = (int)v;
    return 1;
}

/* Temperature on the plate edge at global grid position (gi, gj), -1 <= gi, gj <= n. */
static double edge_value(int gi, int gj, int n)
{
    if (gj >= n)
        return 1.0;                                 /* top */
    if (gj < 0)
        return 0.0;                                 /* bottom */
    if (gi < 0)
        return (gj + 1.0) / (n + 1.0);              /* left: linear */
    return 0.5 * (gj + 1.0) / (n + 1.0);            /* right: half as warm */
}

/* Interior zero, edges fixed: rows 0 and local_n+1 hold the plate edge on the first/last rank. */
static void initialise(double *u, int lo, int local_n, int n, int rank, int size)
{
    int i, j, w = n + 2;
#pragma omp parallel for private(i)
    for (j = 0; j <= local_n + 1; j++) {
        int gj = lo + j - 1;
        for (i = 0; i <= n + 1; i++)
            u[j * w + i] = 0.0;
        if ((j == 0 && rank == 0) || (j == local_n + 1 && rank == size - 1)) {
            for (i = 0; i <= n + 1; i++)
                u[j * w + i] = edge_value(i - 1, gj, n);
        } else {
            u[j * w] = edge_value(-1, gj, n);
            u[j * w + n + 1] = edge_value(n, gj, n);
        }
    }
}

static void exchange(double *u, int local_n, int n, int below, int above)
{
    int w = n + 2;
    MPI_Sendrecv(&u[local_n * w], w, MPI_DOUBLE, above, 1, &u[0], w, MPI_DOUBLE, below, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[w], w, MPI_DOUBLE, below, 2, &u[(local_n + 1) * w], w, MPI_DOUBLE, above, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* One Jacobi sweep over the owned rows, parallel over rows; returns the largest change. */
static double sweep(const double *u, double *unew, int local_n, int n)
{
    int i, j, w = n + 2;
    double change = 0.0;
#pragma omp parallel for private(i) reduction(max : change) schedule(static)
    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++) {
            int c = j * w + i;
            double value = 0.25 * (u[c - 1] + u[c + 1] + u[c - w] + u[c + w]);
            double d = fabs(value - u[c]);
            if (d > change)
                change = d;
            unew[c] = value;
        }
    }
    return change;
}

/* Row sums (parallel over rows) plus the smallest and largest owned value. */
static void row_sums(const double *u, double *sums, int local_n, int n, double *lowest,
                     double *highest)
{
    int i, j, w = n + 2;
    double mn = 1.0e300, mx = -1.0e300;
#pragma omp parallel for private(i) reduction(min : mn) reduction(max : mx) schedule(static)
    for (j = 1; j <= local_n; j++) {
        double s = 0.0;
        for (i = 1; i <= n; i++) {
            double v = u[j * w + i];
            s += v;
            if (v < mn)
                mn = v;
            if (v > mx)
                mx = v;
        }
        sums[j - 1] = s;
    }
    *lowest = mn;
    *highest = mx;
}

int main(int argc, char **argv)
{
    int rank, size, provided, n = DEFAULT_N, steps = DEFAULT_STEPS;
    int lo, hi, local_n, below, above, step, r, j, ok = 1, monotone = 1;
    double *u, *unew, *tmp, *sums, *all = NULL;
    int *counts = NULL, *displs = NULL;
    double local_change, change = 0.0, previous = 0.0;
    double lowest, highest, bounds[2], global_bounds[2], checksum = 0.0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 3 || (argc > 1 && !parse_int(argv[1], &n)) ||
        (argc > 2 && !parse_int(argv[2], &steps)) || n < size) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [n [steps]]   (n = grid side, n >= processes, default %d; "
                    "steps = sweeps, default %d)\n",
                    argv[0], DEFAULT_N, DEFAULT_STEPS);
        MPI_Finalize();
        return 2;
    }

    lo = rank * n / size;
    hi = (rank + 1) * n / size;
    local_n = hi - lo;
    below = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    above = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    u = malloc((size_t)(local_n + 2) * (n + 2) * sizeof(double));
    unew = malloc((size_t)(local_n + 2) * (n + 2) * sizeof(double));
    sums = malloc((size_t)local_n * sizeof(double) + 1);
    if (!u || !unew || !sums) {
        fprintf(stderr, "omp_stencil: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    initialise(u, lo, local_n, n, rank, size);
    initialise(unew, lo, local_n, n, rank, size);

    for (step = 0; step < steps; step++) {
        exchange(u, local_n, n, below, above);
        local_change = sweep(u, unew, local_n, n);
        MPI_Allreduce(&local_change, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (step > 0 && change > previous * (1.0 + 1e-12) + 1e-15)
            monotone = 0;
        previous = change;
        tmp = u;
        u = unew;
        unew = tmp;
    }

    row_sums(u, sums, local_n, n, &lowest, &highest);
    bounds[0] = -lowest;
    bounds[1] = highest;
    MPI_Reduce(bounds, global_bounds, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        all = malloc((size_t)n * sizeof(double));
        counts = malloc((size_t)size * sizeof(int));
        displs = malloc((size_t)size * sizeof(int));
        for (r = 0; r < size; r++) {
            counts[r] = (r + 1) * n / size - r * n / size;
            displs[r] = r * n / size;
        }
    }
    MPI_Gatherv(sums, local_n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        for (j = 0; j < n; j++)
            checksum += all[j];
        printf("checksum %.12e\n", checksum);
        if (monotone && -global_bounds[0] >= 0.0 && global_bounds[1] <= 1.0 &&
            checksum == checksum) {
            printf("verify ok\n");
        } else {
            printf("verify FAILED range [%g, %g]%s\n", -global_bounds[0], global_bounds[1],
                   monotone ? "" : ", change increased");
            ok = 0;
        }
        free(all);
        free(counts);
        free(displs);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(u);
    free(unew);
    free(sums);
    MPI_Finalize();
    return ok ? 0 : 1;
}
