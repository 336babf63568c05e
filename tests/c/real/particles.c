/* Particles in link cells (CoMD, issue 19).  A rank's cells are its share of the domain over a
 * cut-off both computed at run time (cells = floor(n 1.3 / (P 2.1)), no c * form and no
 * a + b * form is exact); each cell holds the particles that fall in it (an array element, data);
 * the halo buffer's length is what a packing function returned, passed through a wrapper to
 * MPI_Sendrecv (the count is a parameter there, data at its call site).
 * Run: particles n  (n particles per unit length; 4 n / P particles per rank). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct cells {
    int n;        /* cells of this rank */
    int *count;   /* particles per cell */
    double *x;    /* positions, cell by cell, at most MAXP per cell */
};

#define MAXP 64

static void bin(struct cells *c, int n, int size)
{
    double extent = n * 1.3 / size, cutoff = 2.1;
    int particles = 4 * n / size;
    c->n = (int)(extent / cutoff);
    c->count = calloc((size_t)c->n, sizeof(int));
    c->x = malloc((size_t)c->n * MAXP * sizeof(double));
    for (int p = 0; p < particles; p++) {
        double x = (p + 0.5) * extent / particles;
        int cell = (int)(x / (extent / c->n));
        c->x[cell * MAXP + c->count[cell]++] = x;
    }
}

static int pack(const struct cells *c, double *buf)
{
    int k = 0;
    for (int cell = 0; cell < c->n; cell++)
        for (int i = 0; i < c->count[cell]; i++)
            buf[k++] = c->x[cell * MAXP + i];
    return k * (int)sizeof(double);
}

static int exchange(void *out, int len, void *in, int cap, int right, int left)
{
    MPI_Status status;
    int got;
    MPI_Sendrecv(out, len, MPI_BYTE, right, 0, in, cap, MPI_BYTE, left, 0, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_BYTE, &got);
    return got;
}

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 64;
    struct cells c;
    double energy = 0.0, total = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bin(&c, n, size);
    double *out = malloc((size_t)c.n * MAXP * sizeof(double));
    double *in = malloc((size_t)c.n * MAXP * sizeof(double) * 2);
    for (int step = 0; step < 5; step++) {
        for (int cell = 0; cell < c.n; cell++) {
            int next = (cell + 1) % c.n;
            for (int i = 0; i < c.count[cell]; i++)
                for (int j = 0; j < c.count[next]; j++)
                    energy += c.x[cell * MAXP + i] * c.x[next * MAXP + j] * 1e-6;
        }
        int len = pack(&c, out);
        int got = exchange(out, len, in, c.n * MAXP * 16, (rank + 1) % size, (rank + size - 1) % size);
        energy += got * 1e-9;
    }
    MPI_Allreduce(&energy, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.6f\n", total);
    free(c.count);
    free(c.x);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
