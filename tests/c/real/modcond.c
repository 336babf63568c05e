/* A conditional on the loop variable (PolyBench's print_array, `if ((i * n + j) % 20 == 0)`): its
 * true ratio is kept from the runs, and they disagree (4/64 at n = 64, 7/128 at n = 128).  The first
 * run's is kept (calls +23 % at n = 1024), and was without a word; the fallbacks now say so.
 * Usage: modcond N */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (i % 20 == 0) printf("\n");
        s += i * 0.5;
    }
    printf("%g\n", s);
    return 0;
}
