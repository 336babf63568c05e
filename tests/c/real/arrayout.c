/* An array initialised to {0, 0} and filled by a call through a pointer (MPI_Dims_create(size, 2,
 * pdims) in the SC17 tutorial's jacobi2d; a function of the program here): the initialiser gave
 * n / d[1] = n/0, and `perfeq model` stopped with "internal error: Cannot convert complex to float".
 * The count is checked as a number; the elements are followed into setdims (d[1] = 1 there).
 * Usage: arrayout N */
#include <stdio.h>
#include <stdlib.h>
void setdims(int k, int *d)
{
    d[0] = k;
    d[1] = 1;
}
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    int d[2] = {0, 0};
    setdims(2, d);
    int by = n / d[1], bx = n / d[0];
    double s = 0;
    for (int j = 1; j <= by; j++)
        for (int i = 1; i <= bx; i++)
            s += j * 0.5 + i;
    printf("%g\n", s);
    return 0;
}
