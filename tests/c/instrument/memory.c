/* memory.c -- VLAs, malloc/calloc/realloc and struct access (perfeq instrumenter test corpus). */
#include <stdio.h>
#include <stdlib.h>

#define ROWS 4

struct point {
    double x, y;
};

struct grid {
    int n;
    double *cells;
    struct point origin;
};

static double total(int n, int m, double t[n][m])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += t[i][j];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 6;
    double vla[n][ROWS];
    int fixed[ROWS][8];
    struct grid g;
    struct point *pts = calloc(n, sizeof *pts);
    int *buf = malloc(n * sizeof(int));
    if (!pts || !buf)
        return 1;
    g.n = n;
    g.cells = malloc(sizeof(double) * (size_t)n * n);
    g.origin.x = 1.5;
    g.origin.y = -0.5;
    for (int i = 0; i < n; i++) {
        buf[i] = i;
        pts[i].x = i + g.origin.x;
        pts[i].y = i * g.origin.y;
        for (int j = 0; j < ROWS; j++)
            vla[i][j] = pts[i].x * j;
        for (int j = 0; j < n; j++)
            g.cells[i * g.n + j] = i - j;
    }
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < 8; c++)
            fixed[r][c] = r * c;
    buf = realloc(buf, 2 * n * sizeof(int));
    if (!buf)
        return 1;
    for (int i = n; i < 2 * n; i++)
        buf[i] = buf[i - n] * 2;
    struct grid *gp = &g;
    printf("vla %.2f fixed %d buf %d cells %.1f y %.2f\n", total(n, ROWS, vla), fixed[3][7], buf[2 * n - 1],
           gp->cells[gp->n * gp->n - 1], pts[n - 1].y);
    free(g.cells);
    free(pts);
    free(buf);
    return 0;
}
