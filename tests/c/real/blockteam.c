/* Blocks of a multigrid level (HPGMG-FV's smoother, issue 19): each level is tiled into blocks whose
 * sizes are kept in an array of structs, so every loop of the smoother's nest has a bound that is
 * data to perfeq.  The fine level is cut into 4^3 tiles, the coarse level is one block, and the
 * smoother runs twice on the fine level and once on the coarse per cycle: each loop's trips per
 * entry are a mean over both levels, and the product of those means is not the cells smoothed.
 * blocknest.c with the block loop an omp for of its own (shared by the team each thread enters it
 * with), not a combined parallel for. */
#include <stdio.h>
#include <stdlib.h>

typedef struct { int i, j, k; } triple;
typedef struct { triple dim; triple lo; } block_type;
typedef struct { int num_blocks; block_type *blocks; double *x; int n; } level_type;

static void tile(level_type *level, int n, int t)
{
    int per = n / t;
    level->n = n;
    level->num_blocks = per * per * per;
    level->blocks = malloc((size_t)level->num_blocks * sizeof(block_type));
    level->x = calloc((size_t)n * n * n, sizeof(double));
    int b = 0;
    for (int bk = 0; bk < per; bk++)
        for (int bj = 0; bj < per; bj++)
            for (int bi = 0; bi < per; bi++) {
                level->blocks[b].dim.i = t;
                level->blocks[b].dim.j = t;
                level->blocks[b].dim.k = t;
                level->blocks[b].lo.i = bi * t;
                level->blocks[b].lo.j = bj * t;
                level->blocks[b].lo.k = bk * t;
                b++;
            }
}

static void smooth(level_type *level)
{
    int n = level->n;
    #pragma omp parallel
    {
    #pragma omp for schedule(static)
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
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    level_type fine, coarse;
    tile(&fine, n, 4);
    tile(&coarse, n / 2, n / 2);
    level_type *order[3] = {&fine, &fine, &coarse};
    for (int cycle = 0; cycle < 3; cycle++)
        for (int s = 0; s < 3; s++)
            smooth(order[s]);
    double sum = 0.0;
    for (int c = 0; c < n * n * n; c++)
        sum += fine.x[c];
    printf("%.3f\n", sum);
    free(fine.blocks);
    free(fine.x);
    free(coarse.blocks);
    free(coarse.x);
    return 0;
}
