/* tests/c/real/qsortcmp.c: keys sorted by the C library's qsort with a comparator of the program,
 * which the library calls back n log2 n - 1.3 n times or so (glibc's merge sort; an odd-even sort's
 * local sort, dieterdewit's mpi_odd_even.c).  From runs at three sizes, c n log n missed its own
 * runs by 2 % and the comparator's calls at 4x the largest by -3.3 %; the two terms a n log n + b n
 * reproduce the runs within 0.02 % and 4x within 0.1 %.  usage: qsortcmp n */
#include <stdio.h>
#include <stdlib.h>

static int compare(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    long *keys = malloc(sizeof(long) * (size_t)n), sum = 0;
    srandom(7);
    for (int i = 0; i < n; i++)
        keys[i] = random();
    qsort(keys, (size_t)n, sizeof(long), compare);
    for (int i = 0; i < n; i++)
        sum += keys[i] % 1000 * (i % 7);
    printf("n=%d first=%ld last=%ld sum=%ld\n", n, keys[0], keys[n - 1], sum);
    free(keys);
    return 0;
}
