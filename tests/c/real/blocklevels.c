/* A multigrid's levels tiled into blocks (HPGMG-FV's smoother from its V-cycle, issue 19): level l
 * has side n / 2^l, cut into 4^3 tiles kept in an array of structs, and the V-cycle smooths every
 * level from one call site (a schedule), twice on the way down and once on the way up.  Each loop's trips per
 * entry mix the levels, and so do the iterations per entry of the nest's outer loop (the mean over
 * log2(n / 4) levels); the cells smoothed over the run follow n^3. */
#include <stdio.h>
#include <stdlib.h>

typedef struct { int i, j, k; } triple;
typedef struct { triple dim; triple lo; } block_type;
typedef struct { int num_blocks; block_type *blocks; double *x; int n; } level_type;

static void tile(level_type *level, int n)
{
    int per = n / 4;
    level->n = n;
    level->num_blocks = per * per * per;
    level->blocks = malloc((size_t)level->num_blocks * sizeof(block_type));
    level->x = calloc((size_t)n * n * n, sizeof(double));
    int b = 0;
    for (int bk = 0; bk < per; bk++)
        for (int bj = 0; bj < per; bj++)
            for (int bi = 0; bi < per; bi++) {
                level->blocks[b].dim.i = level->blocks[b].dim.j = level->blocks[b].dim.k = 4;
                level->blocks[b].lo.i = bi * 4;
                level->blocks[b].lo.j = bj * 4;
                level->blocks[b].lo.k = bk * 4;
                b++;
            }
}

static void smooth(level_type *level)
{
    int n = level->n;
    #pragma omp parallel for schedule(static)
    for (int block = 0; block < level->num_blocks; block++) {
        const int ilo = level->blocks[block].lo.i, jlo = level->blocks[block].lo.j, klo = level->blocks[block].lo.k;
        const int ihi = level->blocks[block].dim.i + ilo;
        const int jhi = level->blocks[block].dim.j + jlo;
        const int khi = level->blocks[block].dim.k + klo;
        for (int k = klo; k < khi; k++)
            for (int j = jlo; j < jhi; j++)
                for (int i = ilo; i < ihi; i++) {
                    int ijk = i + n * (j + n * k);
                    level->x[ijk] = 0.5 * level->x[ijk] + 1.0;
                }
    }
}

static void vcycle(level_type *levels, int nlevels, int *order)
{
    int steps = 0;
    for (int l = 0; l < nlevels; l++) {  /* down: twice per level */
        order[steps++] = l;
        order[steps++] = l;
    }
    for (int l = nlevels - 1; l >= 0; l--)  /* up: once */
        order[steps++] = l;
    for (int s = 0; s < steps; s++)
        smooth(&levels[order[s]]);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    int nlevels = 0;
    for (int side = n; side >= 4; side /= 2)
        nlevels++;
    level_type *levels = malloc((size_t)nlevels * sizeof(level_type));
    for (int l = 0; l < nlevels; l++)
        tile(&levels[l], n >> l);
    int *order = malloc((size_t)(3 * nlevels) * sizeof(int));
    for (int cycle = 0; cycle < 3; cycle++)
        vcycle(levels, nlevels, order);
    double sum = 0.0;
    for (int c = 0; c < n * n * n; c++)
        sum += levels[0].x[c];
    printf("%.3f\n", sum);
    for (int l = 0; l < nlevels; l++) {
        free(levels[l].blocks);
        free(levels[l].x);
    }
    free(levels);
    free(order);
    return 0;
}
