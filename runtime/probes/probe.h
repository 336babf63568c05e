/* perfeq machine probes: what memory.c, compute.c and network.c share.
 *
 * Part of perfeq stage 2 (runtime/probes/): small MPI programs that `perfeq probe` compiles with the
 * user's mpicc (-O2) and launches with mpiexec or srun.  Each takes key=value arguments and prints
 * one JSON line per measured point on rank 0's stdout:
 *
 *     {"curve": "read", "x": 4096, "iters": 512, "samples": [[r0, r1, ...], ...]}
 *
 * one inner list per repetition, one value per rank (the probes that reduce over ranks themselves
 * print one value).  Values are in SI units: bytes per second or seconds per operation.  Errors go
 * to stderr as one "perfeq probe: ..." line, and the job stops with MPI_Abort.
 */
#ifndef PERFEQ_PROBE_H
#define PERFEQ_PROBE_H

#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBE_MAX_LIST 256

static inline double probe_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static inline void probe_fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "perfeq probe: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* The value of `key=value` among the arguments, or `fallback`. */
static inline const char *probe_arg(int argc, char **argv, const char *key, const char *fallback)
{
    size_t length = strlen(key);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], key, length) == 0 && argv[i][length] == '=')
            return argv[i] + length + 1;
    return fallback;
}

static inline long probe_long(int argc, char **argv, const char *key, long fallback)
{
    const char *text = probe_arg(argc, argv, key, NULL);
    char *end;
    long value;
    if (!text)
        return fallback;
    value = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < 0)
        probe_fail("%s=%s: expected a whole number", key, text);
    return value;
}

static inline double probe_double(int argc, char **argv, const char *key, double fallback)
{
    const char *text = probe_arg(argc, argv, key, NULL);
    char *end;
    double value;
    if (!text)
        return fallback;
    value = strtod(text, &end);
    if (*text == '\0' || *end != '\0' || !(value > 0))
        probe_fail("%s=%s: expected a positive number", key, text);
    return value;
}

/* `key=1,2,4`: the numbers into `out` (at most PROBE_MAX_LIST); returns how many. */
static inline int probe_list(int argc, char **argv, const char *key, const char *fallback, long *out)
{
    const char *text = probe_arg(argc, argv, key, fallback);
    int count = 0;
    while (text && *text) {
        char *end;
        long value = strtol(text, &end, 10);
        if (end == text || value < 0 || (*end != ',' && *end != '\0') || count == PROBE_MAX_LIST)
            probe_fail("%s=%s: expected at most %d whole numbers separated by commas", key,
                       probe_arg(argc, argv, key, fallback), PROBE_MAX_LIST);
        out[count++] = value;
        text = *end ? end + 1 : end;
    }
    return count;
}

/* Whether `name` is in the comma-separated list `key=` (all names when the key is absent). */
static inline int probe_wants(int argc, char **argv, const char *key, const char *name)
{
    const char *text = probe_arg(argc, argv, key, NULL);
    size_t length = strlen(name);
    if (!text)
        return 1;
    while (*text) {
        if (strncmp(text, name, length) == 0 && (text[length] == ',' || text[length] == '\0'))
            return 1;
        text = strchr(text, ',');
        if (!text)
            break;
        text++;
    }
    return 0;
}

static inline void *probe_alloc(size_t bytes)
{
    void *memory = NULL;
    if (posix_memalign(&memory, 4096, bytes ? bytes : 1) != 0 || !memory)
        probe_fail("cannot allocate %zu bytes", bytes);
    return memory;
}

/* One point: every rank's `values` (one per repetition) gathered to rank 0, which prints them.
 * With `gather` 0 only rank 0's own values are printed (probes that reduce over ranks themselves). */
static inline void probe_point(const char *curve, double x, long iters, const double *values, int reps, int gather)
{
    int rank, size;
    double *all = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!gather)
        size = 1;
    if (rank == 0)
        all = probe_alloc(sizeof(double) * (size_t)reps * (size_t)size);
    if (gather)
        MPI_Gather(values, reps, MPI_DOUBLE, all, reps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else if (rank == 0)
        memcpy(all, values, sizeof(double) * (size_t)reps);
    if (rank == 0) {
        printf("{\"curve\": \"%s\", \"x\": %.17g, \"iters\": %ld, \"samples\": [", curve, x, iters);
        for (int r = 0; r < reps; r++) {
            printf(r ? ", [" : "[");
            for (int p = 0; p < size; p++)
                printf(p ? ", %.9g" : "%.9g", all[(size_t)p * (size_t)reps + (size_t)r]);
            printf("]");
        }
        printf("]}\n");
        fflush(stdout);
        free(all);
    }
}

#endif
