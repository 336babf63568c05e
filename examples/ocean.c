/*
 * ocean.c -- wind-driven barotropic ocean circulation (Stommel model) by Jacobi relaxation.
 *
 * What it computes
 *   The stream function psi of a closed square basin (side L = 2000 km, psi = 0 on the coast)
 *   forced by a zonal wind, with bottom friction gamma and the beta effect:
 *       gamma (psi_xx + psi_yy) + beta psi_x = -alpha sin(pi y / L).
 *   Discretised with centred differences on an n x n interior grid and solved by `steps` Jacobi
 *   sweeps
 *       psi_ij <- a1 psi_i+1,j + a2 psi_i-1,j + a3 psi_i,j+1 + a4 psi_i,j-1 - a5 f_ij,
 *   (a1..a4 >= 0, a1 + a2 + a3 + a4 = 1).  Each sweep also computes the largest change
 *   |psi_new - psi_old| over the basin (a max-reduction, exact for any P).  Because the
 *   iteration matrix has infinity norm <= 1, that change can never grow from one sweep to the
 *   next; the program verifies this, and that the field is finite.  The iteration count is fixed
 *   (no tolerance), so the work is deterministic.
 *
 * Parameters
 *   argv[1]  n      interior grid points per side (default 200, n >= 6 so that the grid
 *                   resolves the western boundary layer, which keeps a2 >= 0)
 *   argv[2]  steps  Jacobi iterations (default 200)
 *
 * Data distribution
 *   East-west split: process r owns grid columns lo = r*n/P .. hi = (r+1)*n/P - 1 (x direction),
 *   stored column by column (each column contiguous, with the coastal rows 0 and n+1) plus one
 *   halo column on each side.  Requires n >= P.
 *
 * Communication (per iteration)
 *   halo exchange of one column (n + 2 doubles) with the western and the eastern neighbour
 *   (MPI_Irecv / MPI_Isend / MPI_Waitall; no neighbour at the coasts), and one MPI_Allreduce
 *   (MPI_MAX) of the residual.  At the end MPI_Gatherv of per-column sums to rank 0.
 *
 * Complexity
 *   computation  ~ 11 n^2 / P flops per iteration
 *   messages     <= 4 point-to-point messages of n + 2 words + one allreduce (log P) per iteration.
 *
 * Output (rank 0)
 *   checksum <mean of psi over the basin>   and   verify ok | verify FAILED ...
 *   Exit status 0 on success, 1 if verification fails, 2 on bad arguments.
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_N 200
#define DEFAULT_STEPS 200
/* The grid must resolve the western boundary layer (beta h < 2 gamma, i.e. a2 >= 0). */
#define MIN_N 6

static int parse_int(const char *text, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > 100000000L)
        return 0;
    *value = (int)v;
    return 1;
}

static double *new_grid(int columns, int rows)
{
    double *g = calloc((size_t)columns * rows, sizeof(double));
    if (!g) {
        fprintf(stderr, "ocean: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return g;
}

/* Wind forcing f(y) = -alpha sin(pi y / L) on the owned columns (rows 1..n). */
static void forcing(double *f, int local_nx, int n, double h, double length, double alpha)
{
    const double pi = 4.0 * atan(1.0);
    int ci, j, w = n + 2;
    for (ci = 1; ci <= local_nx; ci++) {
        for (j = 1; j <= n; j++)
            f[ci * w + j] = -alpha * sin(pi * j * h / length);
    }
}

/* Exchange the first and last owned columns with the western and eastern neighbours. */
static void exchange_columns(double *psi, int local_nx, int n, int west, int east)
{
    MPI_Request req[4];
    int w = n + 2;
    MPI_Irecv(&psi[0], w, MPI_DOUBLE, west, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&psi[(local_nx + 1) * w], w, MPI_DOUBLE, east, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&psi[local_nx * w], w, MPI_DOUBLE, east, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&psi[w], w, MPI_DOUBLE, west, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

/* One Jacobi sweep over the owned columns; returns the largest change. */
static double sweep(const double *psi, double *next, const double *f, int local_nx, int n,
                    double a1, double a2, double a3, double a4, double a5)
{
    int ci, j, w = n + 2;
    double change = 0.0;
    for (ci = 1; ci <= local_nx; ci++) {
        for (j = 1; j <= n; j++) {
            int c = ci * w + j;
            double value = a1 * psi[c + w] + a2 * psi[c - w] + a3 * psi[c + 1] +
                           a4 * psi[c - 1] - a5 * f[c];
            double d = fabs(value - psi[c]);
            if (d > change)
                change = d;
            next[c] = value;
        }
    }
    return change;
}

/* Per-column sums of psi gathered to rank 0 and added there in global column order. */
static double total(const double *psi, int local_nx, int n, int rank, int size)
{
    double *mine = malloc((size_t)(local_nx + 1) * sizeof(double));
    double *all = malloc((size_t)n * sizeof(double));
    int *counts = malloc((size_t)size * sizeof(int));
    int *displs = malloc((size_t)size * sizeof(int));
    int ci, j, r, w = n + 2;
    double sum = 0.0;
    for (ci = 1; ci <= local_nx; ci++) {
        double s = 0.0;
        for (j = 1; j <= n; j++)
            s += psi[ci * w + j];
        mine[ci - 1] = s;
    }
    for (r = 0; r < size; r++) {
        counts[r] = (r + 1) * n / size - r * n / size;
        displs[r] = r * n / size;
    }
    MPI_Gatherv(mine, local_nx, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
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
    int rank, size, n = DEFAULT_N, steps = DEFAULT_STEPS;
    int lo, hi, local_nx, west, east, it, ok = 1, monotone = 1;
    const double length = 2.0e6, beta = 2.0e-11, gamma = 3.0e-6, alpha = 1.0e-9;
    double h, a1, a2, a3, a4, a5, local_change, change = 0.0, previous = 0.0, first = 0.0, sum;
    double *psi, *next, *f, *tmp;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 3 || (argc > 1 && !parse_int(argv[1], &n)) ||
        (argc > 2 && !parse_int(argv[2], &steps)) || n < size || n < MIN_N) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [n [steps]]   (n = grid size, n >= %d and n >= processes, "
                    "default %d; steps = Jacobi iterations, default %d)\n",
                    argv[0], MIN_N, DEFAULT_N, DEFAULT_STEPS);
        MPI_Finalize();
        return 2;
    }

    lo = rank * n / size;
    hi = (rank + 1) * n / size;
    local_nx = hi - lo;
    west = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    east = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    /* grid spacing and Jacobi coefficients (dx = dy = h) */
    h = length / (n + 1);
    a1 = 0.25 + beta * h / (8.0 * gamma);
    a2 = 0.25 - beta * h / (8.0 * gamma);
    a3 = 0.25;
    a4 = 0.25;
    a5 = h * h / (4.0 * gamma);

    psi = new_grid(local_nx + 2, n + 2);
    next = new_grid(local_nx + 2, n + 2);
    f = new_grid(local_nx + 2, n + 2);
    forcing(f, local_nx, n, h, length, alpha);

    for (it = 0; it < steps; it++) {
        exchange_columns(psi, local_nx, n, west, east);
        local_change = sweep(psi, next, f, local_nx, n, a1, a2, a3, a4, a5);
        MPI_Allreduce(&local_change, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (it == 0)
            first = change;
        /* a growing change is an error unless it is at the level of rounding errors */
        if (it > 0 && !(change <= previous * (1.0 + 1e-12) || change <= 1e-9 * first))
            monotone = 0;
        previous = change;
        tmp = psi;
        psi = next;
        next = tmp;
    }

    sum = total(psi, local_nx, n, rank, size);
    if (rank == 0) {
        printf("checksum %.12e\n", sum / ((double)n * n));
        if (monotone && sum == sum && change == change) {
            printf("verify ok\n");
        } else {
            printf("verify FAILED residual %s\n", monotone ? "not finite" : "increased");
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(psi);
    free(next);
    free(f);
    MPI_Finalize();
    return ok ? 0 : 1;
}
