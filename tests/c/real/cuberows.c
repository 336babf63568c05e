/* The rows of a matrix on an n x n x n grid, stored by a create function and read back through the
   matrix (AMGmk's csr_matvec: num_rows = hypre_CSRMatrixNumRows(A)): data to perfeq, so the loop
   is fitted to the runs.  The runs (n = 10, 13, 16) hold n^3 exactly, but no fit form was a cube:
   it took a + b n^2 (4.5 % off its own runs) and was -43 % at n = 32.  Usage: cuberows N */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int num_rows;
    double *data;
} Mat;

static Mat *create(int num_rows)
{
    Mat *m = malloc(sizeof *m);
    m->num_rows = num_rows;
    m->data = calloc((size_t)num_rows, sizeof(double));
    return m;
}

static void matvec(const Mat *A, const double *x, double *y)
{
    int num_rows = A->num_rows;
    for (int i = 0; i < num_rows; i++)
        y[i] = A->data[i] * x[i] + 0.5 * y[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    Mat *A = create(n * n * n);
    double *x = calloc((size_t)(n * n * n), sizeof(double)), *y = calloc((size_t)(n * n * n), sizeof(double));
    for (int i = 0; i < A->num_rows; i++) {
        A->data[i] = 1.0 + i % 7;
        x[i] = 1.0;
    }
    for (int it = 0; it < 20; it++)
        matvec(A, x, y);
    printf("y[0] = %g\n", y[0]);
    return 0;
}
