/* loops.c -- for/while/do loops with unbraced bodies, nested and triangular loops, macro bounds,
 * break/continue/return inside loops (perfeq instrumenter test corpus). */
#include <stdio.h>

#define N 16
#define STEP 2

static int find(const int *a, int n, int key)
{
    int i;
    for (i = 0; i < n; i++)
        if (a[i] == key)
            return i;
    return -1;
}

int main(void)
{
    int a[N];
    int i, j, k, sum = 0, count = 0;
    for (i = 0; i < N; i++)
        a[i] = i * i;
    for (i = 0; i < N; i++)
        for (j = 0; j < i; j++)
            sum += a[j];
    for (i = N - 1; i >= 0; i -= STEP)
        sum -= a[i];
    i = 0;
    while (i < N)
        i += 3;
    k = 100;
    do
        k /= 2;
    while (k > 3);
    do {
        count++;
    } while (count < 5);
    for (i = 0; i < N; i++) {
        if (i % 3 == 0)
            continue;
        if (i > 12)
            break;
        count += i;
    }
    for (;;) {
        if (++k > 20)
            break;
    }
    for (int m = 0, n = 2; m < n; m++, n--) count++;
    k = N;
    for (i = 0; i < k; i++)
        if (i == 5)
            k--; /* the bound moves: iterations cannot be computed at entry */
    while (0);
    printf("sum %d count %d i %d k %d find %d %d\n", sum, count, i, k, find(a, N, 49), find(a, N, 50));
    return 0;
}
