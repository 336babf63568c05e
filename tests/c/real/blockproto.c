/* Block-scope prototypes: of a library function (`long random(void);`, LLNL's mpi_pi_reduce.c) and
 * of the program's own (`void fill_and_sort2();`, LLNL's mpi_heat2D.c declares its functions so in
 * main).  perfeq took them for function pointers: random() was announced as a call through a
 * pointer, and the announcement left pending was taken by qsort's comparator, which showed up as
 * called from the random() call site. */
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void fill_and_sort(long *v, int n)
{
    long random(void);
    for (int i = 0; i < n; i++)
        v[i] = random() % 1000;
    qsort(v, n, sizeof *v, cmp);
}

static void fill_and_sort2(long *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = random() % 1000;
    qsort(v, n, sizeof *v, cmp);
}

int main(void)
{
    void fill_and_sort2();
    long v[100];
    fill_and_sort(v, 100);
    fill_and_sort2(v, 100);
    printf("%ld %ld\n", v[0], v[99]);
    return 0;
}
