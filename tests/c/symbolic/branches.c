/* Three data-dependent ifs, each true for half of the evaluations, that a branch predictor sees
 * differently: one on hashed keys (outcomes at random), one on sorted keys (one long run of each
 * outcome) and one alternating (true, false, true, ...); and two while loops whose trip counts are
 * data: always 3 (the predictor learns the exit) and 0-3 at random.  argv: n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned hash(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static long count(const unsigned *random, const unsigned *sorted, const unsigned *alternating, int n)
{
    long hits[3] = {0, 0, 0};
    int i;
    for (i = 0; i < n; i++) {
        if (random[i] & 1u)
            hits[0] += i;
        if (sorted[i] < (unsigned)(n / 2))
            hits[1] += i;
        if (alternating[i])
            hits[2] += i;
    }
    return hits[0] + 2 * hits[1] + 3 * hits[2];
}

static long walk(const unsigned *random, const unsigned *steady, int n)
{
    long total = 0;
    int i, k;
    for (i = 0; i < n; i++) {
        k = 0;
        while (k < (int)steady[i])
            k++;
        total += k;
        k = 0;
        while (k < (int)(random[i] % 4u))
            k++;
        total += k;
    }
    return total;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, rank, i;
    unsigned *random, *sorted, *alternating;
    long hits;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    random = malloc((size_t)n * sizeof(unsigned));
    sorted = malloc((size_t)n * sizeof(unsigned));
    alternating = malloc((size_t)n * sizeof(unsigned));
    for (i = 0; i < n; i++) {
        random[i] = hash((unsigned)i + 1000u * (unsigned)rank);
        sorted[i] = (unsigned)i;
        alternating[i] = (unsigned)(i % 2);
    }
    hits = count(random, sorted, alternating, n);
    for (i = 0; i < n; i++)
        alternating[i] = 3;
    hits += walk(random, alternating, n);
    MPI_Allreduce(MPI_IN_PLACE, &hits, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%ld\n", hits);
    free(random);
    free(sorted);
    free(alternating);
    MPI_Finalize();
    return 0;
}
