/* A variable set from its own value (parallel-etudes omp-sieve.c: my_from = ((my_from + k - 1) / k)
 * * k, the first multiple of k at or after the thread's start): resolving it found the same
 * assignment again ("'my_from': resolution too deep") and the loop was fitted (+104 % at 8x with
 * the sieve's other forms).  Usage: reassign N K */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), k = atoi(argv[2]);
    double *a = malloc(n * sizeof *a), s = 0;
    for (int i = 0; i < n; i++)
        a[i] = i % 5;
    int first = n / 3 + 1;
    first = ((first + k - 1) / k) * k;
    for (int x = first; x < n; x += k)
        s += a[x];
    printf("%g\n", s);
    free(a);
    return 0;
}
