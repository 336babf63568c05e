/*
 * shallow.c -- shallow-water model on a doubly periodic n x n grid (after Sadourny's finite
 * difference scheme as used in the NCAR "SWM" / SPEC "swim" benchmark).
 *
 * What it computes
 *   Fields on an Arakawa C grid: pressure (geopotential) p at cell centres, velocities u and v
 *   on the cell faces, vorticity z at the corners.  Each time step computes the mass fluxes
 *   cu, cv, the potential vorticity z and the total head h, then advances u, v, p with a
 *   leapfrog step and a Robert-Asselin time filter.  The initial state is derived from an
 *   analytic stream function.  Every update of a grid point reads only the previous fields,
 *   so results are bitwise identical for any number of processes.
 *   Total mass (sum of p) is conserved by the scheme; the program verifies that.
 *
 * Parameters
 *   argv[1]  n      grid points per side (default 256, n >= 2)
 *   argv[2]  steps  time steps (default 50)
 *
 * Data distribution
 *   Block rows (y direction): process r owns rows lo = r*n/P .. hi = (r+1)*n/P - 1, plus one
 *   halo row above and below and one periodic ghost column on each side.  Requires n >= P.
 *
 * Communication (per time step)
 *   two halo phases (after the flux computation and after the update), 7 fields in all, each
 *   an MPI_Sendrecv of one row (n + 2 doubles) to the upper and to the lower neighbour on a
 *   periodic ring of processes.  At the end MPI_Gatherv of per-row sums to rank 0.
 *
 * Complexity
 *   computation  ~ 65 n^2 / P flops per step
 *   messages     14 sendrecv pairs per step of n + 2 words each, independent of P.
 *
 * Output (rank 0)
 *   checksum <sum of (p - 50000) + u^2 + v^2>   and   verify ok | verify FAILED <mass drift>
 *   Exit status 0 on success, 1 if verification fails, 2 on bad arguments.
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_N 256
#define DEFAULT_STEPS 50

static int parse_int(const char *text, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > 100000000L)
        return 0;
    *value = (int)v;
    return 1;
}

static double *new_field(int rows, int w)
{
    double *f = calloc((size_t)rows * w, sizeof(double));
    if (!f) {
        fprintf(stderr, "shallow: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return f;
}

/*
 * Make the halo of one field consistent: periodic ghost columns on the owned rows, then the
 * halo rows from the neighbours (whole rows, so the corners are right too).
 */
static void exchange(double *f, int local_n, int n, int up, int down)
{
    int j, w = n + 2;
    for (j = 1; j <= local_n; j++) {
        f[j * w] = f[j * w + n];
        f[j * w + n + 1] = f[j * w + 1];
    }
    /* my top row goes up, the lower neighbour's top row arrives in my bottom halo */
    MPI_Sendrecv(&f[local_n * w], w, MPI_DOUBLE, up, 1, &f[0], w, MPI_DOUBLE, down, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* my bottom row goes down, the upper neighbour's bottom row arrives in my top halo */
    MPI_Sendrecv(&f[w], w, MPI_DOUBLE, down, 2, &f[(local_n + 1) * w], w, MPI_DOUBLE, up, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Stream function: a cellular flow plus a second mode, so that the flow is not steady. */
static double stream(double a, double x, double y)
{
    return a * (sin(x) * sin(y) + 0.5 * sin(2.0 * x) * cos(3.0 * y));
}

/*
 * Initial u, v, p from the stream function (global indices); the amplitude a is scaled with n
 * so that velocities are O(20 m/s) at every grid size.
 */
static void initialise(double *u, double *v, double *p, int lo, int local_n, int n, double dx,
                       double dy)
{
    const double pi = 4.0 * atan(1.0);
    const double a = 20.0 * n * dy / (2.0 * pi);
    double di = 2.0 * pi / n, dj = 2.0 * pi / n;
    double el = n * dx, pcf = pi * pi * a * a / (el * el);
    int i, j, w = n + 2;
    for (j = 1; j <= local_n; j++) {
        int gj = lo + j - 1;
        for (i = 1; i <= n; i++) {
            int gi = i - 1;
            double psi_sw = stream(a, gi * di, gj * dj);
            double psi_nw = stream(a, gi * di, (gj + 1) * dj);
            double psi_se = stream(a, (gi + 1) * di, gj * dj);
            u[j * w + i] = -(psi_nw - psi_sw) / dy;
            v[j * w + i] = (psi_se - psi_sw) / dx;
            p[j * w + i] = pcf * (cos(2.0 * gi * di) + cos(2.0 * gj * dj)) + 50000.0;
        }
    }
}

/* Mass fluxes cu, cv, potential vorticity z and total head h on the owned rows. */
static void fluxes(const double *u, const double *v, const double *p, double *cu, double *cv,
                   double *z, double *h, int local_n, int n, double dx, double dy)
{
    double fsdx = 4.0 / dx, fsdy = 4.0 / dy;
    int i, j, w = n + 2;
    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++) {
            int c = j * w + i;
            cu[c] = 0.5 * (p[c] + p[c - 1]) * u[c];
            cv[c] = 0.5 * (p[c] + p[c - w]) * v[c];
            z[c] = (fsdx * (v[c] - v[c - 1]) - fsdy * (u[c] - u[c - w])) /
                   (p[c - w - 1] + p[c - w] + p[c] + p[c - 1]);
            h[c] = p[c] + 0.25 * (u[c + 1] * u[c + 1] + u[c] * u[c] + v[c + w] * v[c + w] +
                                  v[c] * v[c]);
        }
    }
}

/* Leapfrog update of u, v, p from the old level with time step tdt. */
static void advance(const double *uold, const double *vold, const double *pold, const double *cu,
                    const double *cv, const double *z, const double *h, double *unew,
                    double *vnew, double *pnew, int local_n, int n, double tdt, double dx,
                    double dy)
{
    double tdts8 = tdt / 8.0, tdtsdx = tdt / dx, tdtsdy = tdt / dy;
    int i, j, w = n + 2;
    for (j = 1; j <= local_n; j++) {
        for (i = 1; i <= n; i++) {
            int c = j * w + i;
            unew[c] = uold[c] +
                      tdts8 * (z[c + w] + z[c]) * (cv[c + w] + cv[c + w - 1] + cv[c - 1] + cv[c]) -
                      tdtsdx * (h[c] - h[c - 1]);
            vnew[c] = vold[c] -
                      tdts8 * (z[c + 1] + z[c]) * (cu[c + 1] + cu[c - w + 1] + cu[c - w] + cu[c]) -
                      tdtsdy * (h[c] - h[c - w]);
            pnew[c] = pold[c] - tdtsdx * (cu[c + 1] - cu[c]) - tdtsdy * (cv[c + w] - cv[c]);
        }
    }
}

/* Robert-Asselin filter of the old level and shift of the time levels (whole arrays). */
static void time_filter(double *fold, double *f, const double *fnew, int count, double alpha)
{
    int k;
    for (k = 0; k < count; k++) {
        fold[k] = f[k] + alpha * (fnew[k] - 2.0 * f[k] + fold[k]);
        f[k] = fnew[k];
    }
}

/* Per-row sums of p (mass) and of (p - 50000) + u^2 + v^2 (deviation plus kinetic energy). */
static void row_sums(const double *u, const double *v, const double *p, double *mass,
                     double *check, int local_n, int n)
{
    int i, j, w = n + 2;
    for (j = 1; j <= local_n; j++) {
        double m = 0.0, s = 0.0;
        for (i = 1; i <= n; i++) {
            int c = j * w + i;
            m += p[c];
            s += (p[c] - 50000.0) + u[c] * u[c] + v[c] * v[c];
        }
        mass[j - 1] = m;
        check[j - 1] = s;
    }
}

static void global_totals(const double *u, const double *v, const double *p, int local_n, int n,
                          int rank, int size, double *mass, double *check)
{
    double *lm = malloc((size_t)(local_n + 1) * sizeof(double));
    double *ls = malloc((size_t)(local_n + 1) * sizeof(double));
    double *gm = malloc((size_t)n * sizeof(double));
    double *gs = malloc((size_t)n * sizeof(double));
    int *counts = malloc((size_t)size * sizeof(int));
    int *displs = malloc((size_t)size * sizeof(int));
    int r, j;
    for (r = 0; r < size; r++) {
        counts[r] = (r + 1) * n / size - r * n / size;
        displs[r] = r * n / size;
    }
    row_sums(u, v, p, lm, ls, local_n, n);
    MPI_Gatherv(lm, local_n, MPI_DOUBLE, gm, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gatherv(ls, local_n, MPI_DOUBLE, gs, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *mass = 0.0;
    *check = 0.0;
    if (rank == 0) {
        for (j = 0; j < n; j++) {
            *mass += gm[j];
            *check += gs[j];
        }
    }
    free(lm);
    free(ls);
    free(gm);
    free(gs);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    int rank, size, n = DEFAULT_N, steps = DEFAULT_STEPS;
    int lo, hi, local_n, up, down, step, count, ok = 1;
    const double dx = 1.0e5, dy = 1.0e5, dt = 90.0, alpha = 0.001;
    double tdt, mass0, mass, check, drift;
    double *u, *v, *p, *uold, *vold, *pold, *unew, *vnew, *pnew, *cu, *cv, *z, *h;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 3 || (argc > 1 && !parse_int(argv[1], &n)) ||
        (argc > 2 && !parse_int(argv[2], &steps)) || n < 2 || n < size) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [n [steps]]   (n = grid size, n >= 2 and n >= processes, default "
                    "%d; steps default %d)\n",
                    argv[0], DEFAULT_N, DEFAULT_STEPS);
        MPI_Finalize();
        return 2;
    }

    lo = rank * n / size;
    hi = (rank + 1) * n / size;
    local_n = hi - lo;
    up = (rank + 1) % size;
    down = (rank + size - 1) % size;
    count = (local_n + 2) * (n + 2);

    u = new_field(local_n + 2, n + 2);
    v = new_field(local_n + 2, n + 2);
    p = new_field(local_n + 2, n + 2);
    uold = new_field(local_n + 2, n + 2);
    vold = new_field(local_n + 2, n + 2);
    pold = new_field(local_n + 2, n + 2);
    unew = new_field(local_n + 2, n + 2);
    vnew = new_field(local_n + 2, n + 2);
    pnew = new_field(local_n + 2, n + 2);
    cu = new_field(local_n + 2, n + 2);
    cv = new_field(local_n + 2, n + 2);
    z = new_field(local_n + 2, n + 2);
    h = new_field(local_n + 2, n + 2);

    initialise(u, v, p, lo, local_n, n, dx, dy);
    exchange(u, local_n, n, up, down);
    exchange(v, local_n, n, up, down);
    exchange(p, local_n, n, up, down);
    memcpy(uold, u, (size_t)count * sizeof(double));
    memcpy(vold, v, (size_t)count * sizeof(double));
    memcpy(pold, p, (size_t)count * sizeof(double));
    global_totals(u, v, p, local_n, n, rank, size, &mass0, &check);

    tdt = dt;
    for (step = 0; step < steps; step++) {
        fluxes(u, v, p, cu, cv, z, h, local_n, n, dx, dy);
        exchange(cu, local_n, n, up, down);
        exchange(cv, local_n, n, up, down);
        exchange(z, local_n, n, up, down);
        exchange(h, local_n, n, up, down);

        advance(uold, vold, pold, cu, cv, z, h, unew, vnew, pnew, local_n, n, tdt, dx, dy);
        exchange(unew, local_n, n, up, down);
        exchange(vnew, local_n, n, up, down);
        exchange(pnew, local_n, n, up, down);

        if (step > 0) {
            time_filter(uold, u, unew, count, alpha);
            time_filter(vold, v, vnew, count, alpha);
            time_filter(pold, p, pnew, count, alpha);
        } else {
            /* first step was a forward step of length dt; from now on leapfrog over 2 dt */
            tdt = tdt + tdt;
            memcpy(uold, u, (size_t)count * sizeof(double));
            memcpy(vold, v, (size_t)count * sizeof(double));
            memcpy(pold, p, (size_t)count * sizeof(double));
            memcpy(u, unew, (size_t)count * sizeof(double));
            memcpy(v, vnew, (size_t)count * sizeof(double));
            memcpy(p, pnew, (size_t)count * sizeof(double));
        }
    }

    global_totals(u, v, p, local_n, n, rank, size, &mass, &check);
    if (rank == 0) {
        drift = fabs(mass - mass0) / fabs(mass0);
        printf("checksum %.12e\n", check);
        if (drift < 1e-10 && check == check) {
            printf("verify ok\n");
        } else {
            printf("verify FAILED relative mass drift %.3e\n", drift);
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(u);
    free(v);
    free(p);
    free(uold);
    free(vold);
    free(pold);
    free(unew);
    free(vnew);
    free(pnew);
    free(cu);
    free(cv);
    free(z);
    free(h);
    MPI_Finalize();
    return ok ? 0 : 1;
}
