/* tests/c/real/qsortpow2.c: 2^q keys sorted by the C library's qsort with a comparator of the
 * program, the size given by its logarithm q (a bitonic sort's local sort of 1 << q keys,
 * georrous6/bitonic-sort-mpi src/main.c:16).  The comparator's calls, q 2^q or so, fitted no form
 * of q (2^q, 4^q, 8^q): its counts were the first run's at every size, with no word in the model
 * (ops -81 % at q = 17 from q = 14, 15); now c q 2^q.  usage: qsortpow2 q */
#include <stdio.h>
#include <stdlib.h>

static int ascending(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv)
{
    int q = argc > 1 ? atoi(argv[1]) : 14;
    int n = 1 << q;
    int *a = malloc(sizeof(int) * (size_t)n);
    long s = 0;
    srand(1);
    for (int i = 0; i < n; i++)
        a[i] = rand() % 1000000;
    qsort(a, (size_t)n, sizeof(int), ascending);
    for (int i = 0; i < n; i += 97)
        s += a[i];
    printf("checksum %ld\n", s);
    free(a);
    return 0;
}
