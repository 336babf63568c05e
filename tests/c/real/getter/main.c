/* Sizes from a getter of another file called for several options (UoB-HPC hot's main.c:
   mesh.global_nx = get_int_parameter("nx", params); ... mesh.niters = get_int_parameter(...)).
   Before, the getter's own `value` was the only candidate, with a different value at each call:
   "parameters: (none)", every kernel loop constant, -96.9 % at 8x (hot itself -96.7 %).
   Usage: main N [ITERS] */
#include <stdio.h>
#include <stdlib.h>
#include "params.h"

typedef struct {
    int global_nx, local_nx, pad, niters;
} Mesh;

static void update(int nx, int pad, double beta, const double *r, double *p)
{
    for (int ii = pad; ii < nx - pad; ++ii)
        for (int jj = pad; jj < nx - pad; ++jj)
            p[ii * nx + jj] = r[ii * nx + jj] + beta * p[ii * nx + jj];
}

int main(int argc, char **argv)
{
    Mesh mesh;
    mesh.global_nx = get_int_parameter(argc > 1 ? argv[1] : "64");
    mesh.niters = get_int_parameter(argc > 2 ? argv[2] : "5");
    const int inners = get_int_parameter("3");
    mesh.pad = 2;
    mesh.local_nx = mesh.global_nx + 2 * mesh.pad;
    size_t n = (size_t)mesh.local_nx * (size_t)mesh.local_nx;
    double *r = calloc(n, sizeof *r), *p = calloc(n, sizeof *p);
    for (size_t i = 0; i < n; i++)
        r[i] = 1.0;
    for (int it = 0; it < mesh.niters; it++)
        for (int k = 0; k < inners; k++)
            update(mesh.local_nx, mesh.pad, 0.5, r, p);
    printf("p = %.6f\n", p[mesh.pad * mesh.local_nx + mesh.pad]);
    free(r);
    free(p);
    return 0;
}
