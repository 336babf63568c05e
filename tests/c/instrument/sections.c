/* OpenMP sections: a sections construct's block holds nothing but its sections, so no counter may
 * stand before the first section or between two (the instrumented program did not compile).
 * parallel sections (first section without its pragma, a loop, a block with a declaration and a
 * nested loop, one whose loop has its own omp parallel for), sections inside a parallel region
 * (with an if in one), orphaned sections in a function called from a parallel region, and
 * parallel sections nested in a parallel region (every outer thread runs them). */
#include <stdio.h>

static long work(int n)
{
    long s = 0;
    int i;
    for (i = 0; i < n; i++)
        s += i % 7;
    return s;
}

static long shared_total;

static void orphan(void)
{
#pragma omp sections
    {
#pragma omp section
        {
#pragma omp atomic
            shared_total += work(5);
        }
#pragma omp section
        {
#pragma omp atomic
            shared_total += work(6);
        }
    }
}

int main(void)
{
    long a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0;
    int i;
#pragma omp parallel sections private(i)
    {
        a = work(10);
#pragma omp section
        for (i = 0; i < 100; i++)
            b += i;
#pragma omp section
        {
            int j, k;
            for (j = 0; j < 4; j++)
                for (k = 0; k < 5; k++)
                    c += j * k;
        }
#pragma omp section
#pragma omp parallel for reduction(+ : h)
        for (i = 0; i < 8; i++)
            h += i;
    }
#pragma omp parallel
    {
#pragma omp sections
        {
#pragma omp section
            d = work(20);
#pragma omp section
            {
                if (work(3) > 2)
                    e = 1;
                else
                    e = 2;
            }
        }
    }
#pragma omp parallel reduction(+ : f, g)
    {
        long mine = 0;
        orphan();
        f += 1;
#pragma omp parallel sections reduction(+ : mine)
        {
#pragma omp section
            mine += work(4);
#pragma omp section
            mine += 1;
        }
        g += mine > 0;
    }
    printf("%ld %ld %ld %ld %ld %ld %ld %d\n", a, b, c, d, e, h, shared_total, f > 0 && g > 0);
    return 0;
}
