/* OpenMP sections: a sections construct's block holds nothing but its sections, so no counter may
 * stand before the first section or between two (the instrumented program did not compile).
 * parallel sections (first section without its pragma, a loop, a block with a declaration and a
 * nested loop), and sections inside a parallel region (with an if in one). */
#include <stdio.h>

static long work(int n)
{
    long s = 0;
    int i;
    for (i = 0; i < n; i++)
        s += i % 7;
    return s;
}

int main(void)
{
    long a = 0, b = 0, c = 0, d = 0, e = 0;
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
    printf("%ld %ld %ld %ld %ld\n", a, b, c, d, e);
    return 0;
}
