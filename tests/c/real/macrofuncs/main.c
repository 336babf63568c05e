/* macrofuncs: see funcs.c.  Usage: main N */
#include <stdio.h>
#include <stdlib.h>
typedef int (*cmp_fn)(const void *, const void *);
struct sorter { cmp_fn cmp; int n; };
void setup(struct sorter *s, int size, int n, const int *v);
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int *v = malloc(n * sizeof(int));
    struct sorter s;
    for (int i = 0; i < n; i++)
        v[i] = (i * 7919) % n;
    setup(&s, sizeof(int), n, v);
    for (int i = 0; i < n; i++)
        v[i] = 2 * v[i];
    qsort(v, s.n, sizeof(int), s.cmp);
    printf("%d %d %d\n", v[0], v[n - 1], v[n / 2]);
    free(v);
    return 0;
}
