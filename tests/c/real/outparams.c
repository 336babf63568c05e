/* Sizes a function sets through pointer arguments (issue 19), as NPB MG's setup(&n1, &n2, &n3, lt)
 * and the 1-D decompositions of MPI codes do: *n1 = (1 << lt) + 2 and a block's first and last
 * index; the loops bounded by them are symbolic, and the model is exact at 8x. */
#include <stdio.h>
#include <stdlib.h>

static void setup(int *n1, int lt)
{
    *n1 = (1 << lt) + 2;
}

static void block_range(int n, int parts, int part, int *first, int *last)
{
    *first = part * (n / parts);
    *last = *first + n / parts - 1;
}

int main(int argc, char **argv)
{
    int lt = atoi(argv[1]), n = atoi(argv[2]), n1, first, last;
    double s = 0.0;
    setup(&n1, lt);
    block_range(n, 4, 1, &first, &last);
    for (int i = 1; i < n1 - 1; i++)
        s += 0.5 * i;
    for (int i = first; i <= last; i++)
        s += 0.25 * i;
    printf("%.3f\n", s);
    return 0;
}
