/* tests/c/real/sectionsrec.c: a merge sort that sorts its halves in `omp parallel sections` down to
 * a depth, then recursively on its own thread (a bitonic sort's parallel merge sort,
 * georrous6/bitonic-sort-mpi parallel_sort_omp.c).  The runtime folded a recursive call onto its
 * nearest ancestor of the same thread: a section the encountering thread ran folded, one another
 * thread ran got a context of its own, so the call tree's shape depended on which thread ran which
 * section (one shape in five runs, another in the sixth).  Now a section's call has a context of
 * its own whichever thread runs it.  usage: sectionsrec n depth */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void merge(int *a, int n, int *tmp)
{
    int h = n / 2, i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, sizeof(int) * (size_t)n);
}

static void msort(int *a, int n, int *tmp, int depth)
{
    if (n < 2)
        return;
    if (depth > 0) {
#pragma omp parallel sections
        {
#pragma omp section
            msort(a, n / 2, tmp, depth - 1);
#pragma omp section
            msort(a + n / 2, n - n / 2, tmp + n / 2, depth - 1);
        }
    } else {
        msort(a, n / 2, tmp, 0);
        msort(a + n / 2, n - n / 2, tmp + n / 2, 0);
    }
    merge(a, n, tmp);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, depth = argc > 2 ? atoi(argv[2]) : 1;
    int *a = malloc(sizeof(int) * (size_t)n), *tmp = malloc(sizeof(int) * (size_t)n);
    long s = 0;
    for (int i = 0; i < n; i++)
        a[i] = (int)((i * 2654435761u) % 100003u);
    msort(a, n, tmp, depth);
    for (int i = 0; i < n; i += 7)
        s += (long)a[i] * (i % 5);
    printf("%d %d %ld\n", a[0], a[n - 1], s);
    free(a);
    free(tmp);
    return 0;
}
