/* Loads of multi-dimensional arrays (PolyBench's `double A[N][N]` parameters, NPB's static
   `u[NZ][NY][NX]`, struct fields that are arrays): a[i][j] of a true 2-D array is ONE load, the
   row a[i] being an address; p[i][j] of `double **p` is two; s->a[j] of an array field is one.
   Before, every subscript and every `->` counted a load: PolyBench jacobi-2d's point was 11 loads
   where the C abstract machine has 5, which the machine's cost per load priced 2.2x too high.
   Usage: arrays2d N (N <= 64) */
#include <stdio.h>
#include <stdlib.h>

#define M 64
typedef double row[M];
struct grid { double a[M]; double *p; double w; };

static double A[M][M], B[M][M];
static double cube[4][M][M];

static void smooth(int n, double in[M][M], double out[M][M])
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)   /* 5 loads, 1 store, 4 adds, 1 multiply */
            out[i][j] = 0.2 * (in[i][j] + in[i][j - 1] + in[i][j + 1] + in[i + 1][j] + in[i - 1][j]);
}

static double fields(int n, const struct grid *g, row *r, double **p)
{
    double s = 0.0;
    for (int j = 0; j < n; j++)           /* g->a[j] 1, g->p[j] 1, g->w 0, r[1][j] 1, p[1][j] 2 */
        s += g->a[j] + g->p[j] * g->w + r[1][j] + p[1][j];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    if (n < 3 || n > M)
        return 1;
    struct grid g;
    double *rows[M];
    for (int i = 0; i < n; i++) {
        rows[i] = malloc((size_t)n * sizeof(double));
        for (int j = 0; j < n; j++) {
            A[i][j] = (i * 7 + j) % 11;
            rows[i][j] = j;
            cube[i % 4][i][j] = A[i][j];
        }
        g.a[i] = i;
    }
    g.p = rows[0];
    g.w = 0.5;
    for (int t = 0; t < 4; t++) {
        smooth(n, A, B);
        smooth(n, B, A);
    }
    double s = fields(n, &g, A, rows) + cube[1][1][1];
    printf("%.6f %.6f\n", A[n / 2][n / 2], s);
    for (int i = 0; i < n; i++)
        free(rows[i]);
    return 0;
}
