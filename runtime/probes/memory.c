/* perfeq memory probe (MAPS-like, Snavely et al. 2002): sustained memory rates against the working
 * set, for every process of an MPI job at once (run it on k processes of one node: contention).
 *
 * Every rank owns one array and, for each access pattern and working-set size, times `reps`
 * repetitions between barriers, so that the k processes run each kernel at the same time:
 *
 *   read    s += a[i]            unit stride, 8 accumulators          bytes/s (8 B per load)
 *   update  a[i] = a[i] * s      unit stride, load and store          bytes/s (16 B per element)
 *   stride  s += a[i], i += 64   one double every 512 B (8 lines)     bytes/s (8 B per load)
 *   chase   p = *p               random cyclic chain, one per line     seconds per load (latency)
 *
 * A repetition makes about `loads` loads for read, update and stride (at least one pass over the
 * working set), and `chase` dependent loads for chase.  Arguments (key=value):
 *   sizes=4096,8192,...  working sets in bytes (multiples of 512)
 *   patterns=read,update,stride,chase   reps=3   loads=2097152   chase=262144   line=64
 */
#include "probe.h"

#define STRIDE 64 /* doubles between two loads of the stride pattern: 512 bytes */

static volatile double sink_double;
static void *volatile sink_pointer;

__attribute__((noinline)) static double read_kernel(const double *a, size_t n, long passes)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (long p = 0; p < passes; p++)
        for (size_t i = 0; i < n; i += 8) {
            s0 += a[i];
            s1 += a[i + 1];
            s2 += a[i + 2];
            s3 += a[i + 3];
            s4 += a[i + 4];
            s5 += a[i + 5];
            s6 += a[i + 6];
            s7 += a[i + 7];
        }
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
}

/* Unrolled by 8 like read_kernel: rolled, the loop's own instructions (about 1.7 cycles per element at
 * -O2) were slower than memory, and the curve stayed flat from L1 to memory. */
__attribute__((noinline)) static void update_kernel(double *a, size_t n, long passes, double scale)
{
    for (long p = 0; p < passes; p++) {
        double s = (p & 1) ? 1.0 / scale : scale; /* the values stay near 1 over any number of passes */
        for (size_t i = 0; i < n; i += 8) {
            a[i] *= s;
            a[i + 1] *= s;
            a[i + 2] *= s;
            a[i + 3] *= s;
            a[i + 4] *= s;
            a[i + 5] *= s;
            a[i + 6] *= s;
            a[i + 7] *= s;
        }
    }
}

__attribute__((noinline)) static double stride_kernel(const double *a, size_t n, long passes)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t whole = n / (4 * STRIDE) * (4 * STRIDE);
    for (long p = 0; p < passes; p++) {
        for (size_t i = 0; i < whole; i += 4 * STRIDE) {
            s0 += a[i];
            s1 += a[i + STRIDE];
            s2 += a[i + 2 * STRIDE];
            s3 += a[i + 3 * STRIDE];
        }
        for (size_t i = whole; i < n; i += STRIDE)
            s0 += a[i];
    }
    return (s0 + s1) + (s2 + s3);
}

__attribute__((noinline)) static void *chase_kernel(void **p, long loads)
{
    for (long k = 0; k < loads; k += 8) {
        p = (void **)*p;
        p = (void **)*p;
        p = (void **)*p;
        p = (void **)*p;
        p = (void **)*p;
        p = (void **)*p;
        p = (void **)*p;
        p = (void **)*p;
    }
    return p;
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* One random cycle through the `lines` lines of `base` (Sattolo's algorithm): the first word of each
 * line points to the next line, in an order the hardware prefetchers cannot follow. */
static void build_chain(void **base, size_t lines, size_t words, uint64_t *state)
{
    for (size_t i = 0; i < lines; i++)
        base[i * words] = (void *)(uintptr_t)i;
    for (size_t i = lines - 1; i > 0; i--) {
        size_t j = (size_t)(next_random(state) % i);
        void *swap = base[i * words];
        base[i * words] = base[j * words];
        base[j * words] = swap;
    }
    for (size_t i = 0; i < lines; i++)
        base[i * words] = (void *)&base[(uintptr_t)base[i * words] * words];
}

static void fill(double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = 1.0 + 1e-9 * (double)(i & 1023);
}

int main(int argc, char **argv)
{
    static const char *patterns[] = {"read", "update", "stride", "chase"};
    long sizes[PROBE_MAX_LIST];
    int rank, count;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    count = probe_list(argc, argv, "sizes", "4096", sizes);
    long reps = probe_long(argc, argv, "reps", 3), loads = probe_long(argc, argv, "loads", 1L << 21);
    long chase = probe_long(argc, argv, "chase", 1L << 18), line = probe_long(argc, argv, "line", 64);
    if (reps < 1 || loads < 1 || chase < 8 || line < (long)sizeof(void *) || line % (long)sizeof(void *))
        probe_fail("reps, loads, chase and line must be positive (chase at least 8, line a multiple of %zu)",
                   sizeof(void *));
    long largest = 0;
    for (int s = 0; s < count; s++) {
        if (sizes[s] < STRIDE * (long)sizeof(double) || sizes[s] % (STRIDE * (long)sizeof(double)) ||
            sizes[s] % line)
            probe_fail("sizes: %ld bytes is not a multiple of %zu and of the line, %ld", sizes[s],
                       STRIDE * sizeof(double), line);
        if (sizes[s] > largest)
            largest = sizes[s];
    }
    double *a = probe_alloc((size_t)largest);
    double *values = probe_alloc(sizeof(double) * (size_t)reps);
    uint64_t state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(rank + 1);
    fill(a, (size_t)largest / sizeof(double));
    for (int k = 0; k < 4; k++) {
        if (!probe_wants(argc, argv, "patterns", patterns[k]))
            continue;
        for (int s = 0; s < count; s++) {
            size_t n = (size_t)sizes[s] / sizeof(double);
            long per_pass = k == 2 ? (long)(n / STRIDE) : (long)n;
            long passes = loads / per_pass > 1 ? loads / per_pass : 1;
            long iters = k == 3 ? chase : passes;
            size_t lines = (size_t)sizes[s] / (size_t)line, words = (size_t)line / sizeof(void *);
            if (k == 3) {
                build_chain((void **)a, lines, words, &state);
                sink_pointer = chase_kernel((void **)a, chase < (long)lines ? chase : ((long)lines + 7) / 8 * 8);
            }
            else if (k == 0)
                sink_double = read_kernel(a, n, 1); /* warm: the working set in the caches it fits */
            else if (k == 1)
                update_kernel(a, n, 2, 1.0000001);
            else
                sink_double = stride_kernel(a, n, 1);
            for (long r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double start = probe_seconds(), seconds;
                if (k == 0)
                    sink_double = read_kernel(a, n, passes);
                else if (k == 1)
                    update_kernel(a, n, passes + (passes & 1), 1.0000001);
                else if (k == 2)
                    sink_double = stride_kernel(a, n, passes);
                else
                    sink_pointer = chase_kernel((void **)a, chase);
                seconds = probe_seconds() - start;
                if (k == 0)
                    values[r] = 8.0 * (double)n * (double)passes / seconds;
                else if (k == 1)
                    values[r] = 16.0 * (double)n * (double)(passes + (passes & 1)) / seconds;
                else if (k == 2)
                    values[r] = 8.0 * (double)(n / STRIDE) * (double)passes / seconds;
                else
                    values[r] = seconds / (double)chase;
            }
            probe_point(patterns[k], (double)sizes[s], k == 1 ? passes + (passes & 1) : iters, values, (int)reps, 1);
        }
        if (k == 3)
            fill(a, (size_t)largest / sizeof(double)); /* the chains overwrote the doubles */
    }
    free(values);
    free(a);
    MPI_Finalize();
    return 0;
}
