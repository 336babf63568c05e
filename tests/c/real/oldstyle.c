/* Old-style (K&R) definitions, as NPB's IS still has them (is.c: `main( argc, argv ) int argc;
 * char **argv; {`, `double randlc(X, A) double *X; double *A; {`): an implicit int return type and
 * parameters declared between the ) and the {.  gcc accepts them (-std=gnu89 .. gnu17).  And
 * declarations whose type is C89's implicit int (Rodinia backprop's imagenet.c: `extern
 * layer_size;`), which stopped the instrumenter with "Missing type in declaration". */
#include <stdio.h>
#include <stdlib.h>

extern twices;
static unused_count;
int twices = 0;
static int twice(x) int x; { twices++; return 2 * x; }

double scale(a, b, n)
double *a;
double b;
int n;
{
    int i;
    double s = 0;
    for (i = 0; i < n; i++)
        s += a[i] * b;
    return s;
}

main(argc, argv)
int argc;
char **argv;
{
    int n = argc > 1 ? atoi(argv[1]) : 10, i;
    double *a = malloc(sizeof(double) * 2 * n);
    for (i = 0; i < twice(n); i++)
        a[i] = i;
    printf("%g %d\n", scale(a, 0.5, twice(n)), twices);
    free(a);
    return 0;
}
