/* sync_noise.c -- random per-rank task times of a known distribution between synchronising calls.
 *
 * Usage: sync_noise STEPS MEAN_US SHAPE SEED
 * Each rank draws, STEPS times, an Erlang-SHAPE task time of mean MEAN_US microseconds from its own
 * seeded generator (seed SEED, stream = rank), sleeps until that time has passed (clock_nanosleep
 * to an absolute deadline: the task takes wall time without taking a core, so oversubscribed runs
 * stay honest), then joins an MPI_Allreduce.  Every step waits for the slowest of the P ranks: the
 * mean step time is the expected maximum of P task times plus the allreduce itself.
 * The allreduce takes the maximum of the drawn times, so rank 0 knows the critical path the draws
 * make, free of the machine's scheduling: it prints the mean draw and the sum over the steps of
 * the slowest rank's draw (the same with and without perfeq) and, on a line of its own, the
 * measured wall time of the steps (MPI_Wtime, between two barriers).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long state;

/* splitmix64: a small generator with independent streams per seed */
static double uniform01(void)
{
    unsigned long long z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double erlang_us(int shape, double mean_us)
{
    double total = 0.0;
    int k;
    for (k = 0; k < shape; k++)
        total -= log(uniform01());
    return total * mean_us / shape;
}

static void sleep_until(const struct timespec *start, double us)
{
    struct timespec deadline = *start;
    long long ns = (long long)(us * 1e3);
    deadline.tv_sec += (time_t)(ns / 1000000000LL);
    deadline.tv_nsec += (long)(ns % 1000000000LL);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) != 0) {
    }
}

int main(int argc, char **argv)
{
    int rank, size, steps, shape, step;
    double mean_us, drawn = 0.0, total = 0.0, critical = 0.0, local, slowest, start, stop;
    unsigned long long seed;
    struct timespec now;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 5) {
        if (rank == 0)
            fprintf(stderr, "usage: sync_noise STEPS MEAN_US SHAPE SEED\n");
        MPI_Finalize();
        return 2;
    }
    steps = atoi(argv[1]);
    mean_us = atof(argv[2]);
    shape = atoi(argv[3]);
    seed = strtoull(argv[4], NULL, 10);
    state = seed * 1000003ULL + (unsigned long long)rank * 0x632be59bd9b4e019ULL;
    MPI_Barrier(MPI_COMM_WORLD);
    start = MPI_Wtime();
    for (step = 0; step < steps; step++) {
        local = erlang_us(shape, mean_us);
        clock_gettime(CLOCK_MONOTONIC, &now);
        sleep_until(&now, local);
        drawn += local;
        MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        critical += slowest;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    stop = MPI_Wtime();
    MPI_Reduce(&drawn, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("mean draw %.6f ms, critical path %.6f ms over %d ranks\n", total / 1e3 / steps / size,
               critical / 1e3, size);
        printf("time %.9f s\n", stop - start);
    }
    MPI_Finalize();
    return 0;
}
