/* A comparator that qsort calls (ParRes Kernels' Sparse sorts each row's column indices): the
   library enters compare(), so its context has no call site of the program's.  Its counts were the
   first run's, silently (Sparse: self-check +22 %).  Each of n rows sorts the same 8 keys, so
   compare runs the same number of times per row and the model is exact at any n.
   Usage: callback N */
#include <stdio.h>
#include <stdlib.h>

static int compare(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    long keys[8], checksum = 0;
    for (int row = 0; row < n; row++) {
        for (int k = 0; k < 8; k++)
            keys[k] = (k * 5) % 8;
        qsort(keys, 8, sizeof keys[0], compare);
        checksum += keys[row % 8];
    }
    printf("checksum %ld\n", checksum);
    return 0;
}
