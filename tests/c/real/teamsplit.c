/* A team split by hand (parallel-etudes omp-inclusive-scan.c): each thread scans the rows
 * [n id / nt, n (id + 1) / nt) it computes from omp_get_thread_num(), deals out a second loop
 * cyclically (i = id; i < n; i += nt), and thread 0 alone adds the block sums.  The bounds were
 * "not symbolic (call of omp_get_thread_num)" and fitted per entry, n / 2 - 1 from runs on two
 * threads, whatever T.  Usage: teamsplit N */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    int *v = malloc(n * sizeof *v), *s = malloc(n * sizeof *s);
    long total = 0;
    for (int i = 0; i < n; i++)
        v[i] = i % 7;
#pragma omp parallel reduction(+:total)
    {
        const int id = omp_get_thread_num(), nt = omp_get_num_threads();
        const int lo = n * id / nt, hi = n * (id + 1) / nt;
        if (lo < hi) {
            s[lo] = v[lo];
            for (int i = lo + 1; i < hi; i++)
                s[i] = s[i - 1] + v[i];
            total += s[hi - 1];
        }
        for (int i = id; i < n; i += nt)  /* dealt out cyclically: ceil((n - id) / nt) each */
            total += v[i] & 1;
        if (id == 0)
            for (int k = 0; k < nt; k++)
                total += k;
    }
    printf("%ld\n", total);
    free(v);
    free(s);
    return 0;
}
