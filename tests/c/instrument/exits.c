/* Data-dependent loop exits (issue 19, overhead): loops nothing leaves early have their exit test
 * told to its branch predictor once per entry, at the exit (PERFEQ_EXIT_*); a loop left by break,
 * or one whose body recurses, keeps the test in PERFEQ_BRANCH.  The if by which a search loop
 * leaves (break or return) is told when taken and at the loop's exit (PERFEQ_GUARD_*); one that is
 * not the loop's only way out keeps PERFEQ_BRANCH.  Row lengths (j * 7) % 11. */
#include <stdio.h>
#include <stdlib.h>

static int tree(int d, const int *len)
{
    int s = 0;
    for (int k = 0; k < len[d]; k++) /* recursion inside: per test */
        s += d > 0 ? tree(d - 1, len) : 1;
    return s;
}

static int search(const int *row, int n, int v, const int *len)
{
    for (int j = 0; j < n; j++)
        if (row[j + 1] > v) /* search: told when taken */
            return j + tree(0, len) - len[0];
    return n;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300;
    int *row = malloc((n + 1) * sizeof *row);
    int len[3] = {2, 3, 2};
    double *a, s = 0, t = 0;
    row[0] = 0;
    for (int j = 0; j < n; j++)
        row[j + 1] = row[j] + (j * 7) % 11;
    a = malloc((row[n] + 1) * sizeof *a);
    for (int k = 0; k < row[n]; k++)
        a[k] = k % 5;
    for (int j = 0; j < n; j++)
        for (int k = row[j]; k < row[j + 1]; k++) /* sparse row: told at the exit */
            s += a[k];
    int m = row[n];
    while (m > len[0]) /* halving: told at the exit */
        m /= 2;
    for (int k = 0; k < row[n]; k++) { /* left by break: per test */
        if (a[k] > 3.5) /* its guard: told when taken */
            break;
        s += 1;
    }
    long found = 0;
    for (int v = 0; v < row[n] + 40; v += 37)
        found += search(row, n, v, len);
    for (int k = 0; k < n; k++) { /* two ways out */
        if (row[k] > 50) /* not a guard: per test */
            break;
        if (a[k] > 5)
            return 3;
    }
#pragma omp parallel reduction(+ : t)
    {
#pragma omp for
        for (int j = 0; j < n; j++)
            for (int k = row[j]; k < row[j + 1]; k++) /* in a parallel region: the thread's slab */
                t += a[k];
    }
    printf("%g %g %d %d %ld\n", s, t, m, tree(2, len), found);
    free(a);
    free(row);
    return 0;
}
