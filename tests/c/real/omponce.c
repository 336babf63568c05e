/* omp master and omp single inside a function every thread of a team calls (NPB IS's rank(): the
 * clear loop under omp master was counted once per thread, issue 19). */
#include <stdio.h>
#include <stdlib.h>

static double shared_buf[1 << 16];

static double step(int n)
{
    double mine = 0.0;
#pragma omp master
    {
        for (int i = 0; i < n; i++)  /* one thread */
            shared_buf[i] = 0.0;
    }
#pragma omp barrier
#pragma omp single
    for (int i = 0; i < n / 2; i++)  /* one thread, the others wait */
        shared_buf[i] += 1.0;
    for (int i = 0; i < n; i++)      /* every thread */
        mine += i % 7;
    return mine;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    double total = 0.0;
#pragma omp parallel reduction(+ : total)
    for (int it = 0; it < 5; it++)
        total += step(n);
    printf("%.1f %.1f\n", total / 5.0, shared_buf[0]);
    return 0;
}
