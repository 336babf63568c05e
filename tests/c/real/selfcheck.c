/* A model that cannot reproduce its own runs must say so.  The trip count of the loop in work() is
 * data (an entry of a table chosen by n), which no form of n fits: the model takes the nearest
 * form and the self-check names the loop at the runs it misses.  m is set by a helper called only
 * when a second argument is given: a trace without it has no value of m. */
#include <stdio.h>
#include <stdlib.h>

static const int table[5] = {7, 3, 11, 2, 5};

static long work(int n)
{
    int trips = table[n % 5] * 10;
    long s = 0;
    for (int i = 0; i < trips; i++)
        s += i % 3;
    return s + n;
}

static int m = 1;

static void read_m(char **argv)
{
    m = atoi(argv[2]);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    long s = 0;
    if (argc > 2)
        read_m(argv);
    for (int k = 0; k < m; k++)
        s += work(n);
    printf("%ld\n", s);
    return 0;
}
