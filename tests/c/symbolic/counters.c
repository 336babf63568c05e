/* Values counted by loops (NPB FT's ilog2, a level count, a counted tally, a doubled width): while
 * loops that step their variable in the body, a counter's value after such a loop, a function whose
 * value is that counter with an early return, and a variable a completed loop assigns (its value
 * after the loop is not the one before: that loop's bound is fitted, not taken from the stale value). */
#include <stdio.h>
#include <stdlib.h>

static int ilog2(int n)
{
    int nn, lg;
    if (n == 1) {
        return 0;
    }
    lg = 1;
    nn = 2;
    while (nn < n) {
        nn = nn << 1;
        lg++;
    }
    return lg;
}

static int levels(int n)
{
    int count = 0;
    while (n > 1) {
        count += 1;
        n /= 2;
    }
    return count;
}

static double fft_like(int m, int n, const double *x)
{
    double s = 0.0;
    for (int l = 1; l <= m; l++) {
        int span = 1 << (l - 1);
        for (int i = 0; i < span; i++)
            for (int j = 0; j < n / span; j++)
                s += x[j] * i;
    }
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    double *x = calloc(n, sizeof *x);
    double s = 0.0;
    int tally = 0, last = 0;
    for (int i = 0; i < n; i++)
        x[i] = i;
    int m = ilog2(n);
    int depth = levels(n);
    for (int i = 0; i < n; i += 4)
        tally++;
    for (int k = 0; k < depth; k++)
        for (int i = 0; i < tally; i++)
            s += x[i];
    for (int i = 0; i < n; i++)
        if (x[i] > s)
            last = i;
    for (int i = 0; i < last + 1; i++)
        s -= x[i];
    int width = 1;
    for (int k = 0; k < depth; k++)
        width *= 2;
    for (int i = 0; i < width; i += 8)
        s += x[i % n];
    printf("%d %d %d %d %g\n", m, depth, tally, last, fft_like(m, n, x) + s);
    free(x);
    return 0;
}
