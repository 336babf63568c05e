/* MPI calls and calls of the program's functions written through macros, as real codes check every
 * MPI call: an argument of a do { ... } while (0) checking macro (CHECK), a macro that is the whole
 * call (BCAST, TIMER_START), and a macro that turns its argument into a string (CHECK_NAMED), which
 * perfeq must not hook (the message would change): its messages are said to be missing. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) do { if ((call) != MPI_SUCCESS) { fprintf(stderr, "MPI error\n"); abort(); } } while (0)
#define CHECK_NAMED(call) do { if ((call) != MPI_SUCCESS) { fprintf(stderr, "%s failed\n", #call); abort(); } } while (0)
#define BCAST(buf, count) MPI_Bcast(buf, count, MPI_BYTE, 0, MPI_COMM_WORLD)
#define TIMER_START() start_timer()

static double t0;

static void start_timer(void)
{
    for (int i = 0; i < 100; i++)
        t0 += i * 1e-9;
}

static double work(int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += i * 0.5;
    return s;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), rank, size;
    double s, g = 0.0;
    char *buf = calloc((size_t)n, 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    TIMER_START();
    for (int it = 0; it < 10; it++) {
        s = work(n);
        CHECK(MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        BCAST(buf, n / 10);
    }
    CHECK_NAMED(MPI_Allreduce(MPI_IN_PLACE, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    if (rank == 0)
        printf("%g %d\n", g, size);
    free(buf);
    MPI_Finalize();
    return 0;
}
