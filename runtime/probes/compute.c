/* perfeq compute probe: seconds per operation of the core, with the operands in registers.
 *
 *   flops_independent    8 independent accumulators, s_j += x        seconds per addition (throughput)
 *   flops_chained        one accumulator, s += x, each on the last   seconds per addition (latency)
 *   int_ops              4 independent xorshift streams (<<, >>, ^)  seconds per integer operation
 *   divide               8 independent quotients, 2 per vector, /= d  seconds per double division (packed throughput)
 *   math                 8 independent chains of exp(-q), log(q + 2)  seconds per call of a transcendental function
 *   branch_predictable   if (d[i]) on sorted random bytes            seconds per branch
 *   branch_random        if (d[i]) on the same bytes unsorted        seconds per branch (half mispredicted)
 *   noise_rate           fixed work quanta back to back (FWQ): the   interruptions per second
 *   noise_length         time of a quantum beyond the fastest one,   seconds per interruption (mean)
 *   noise_variance       when above max(1 us, 5 % of it), is an      sum of squared interruptions per
 *                        interruption of the process (OS noise)      second: seconds (lambda E[L^2])
 *
 * Every line is one kernel; `x` is the number of loop iterations timed per repetition.  Run on one
 * process; every rank would time its own copy, and rank 0 prints only its own.  Arguments
 * (key=value): iterations=4194304 reps=5 branch_bytes=262144 noise_quantum=2e-5 noise_seconds=0.3
 * kernels=flops_independent,...  The noise kernels' x is the quantum in seconds; a repetition times
 * noise_seconds of quanta.
 */
#include "probe.h"
#include <math.h>

static volatile double sink_double;
static volatile uint64_t sink_integer;
static volatile double one_billionth = 1e-9; /* read at run time: nothing folds into a constant */

__attribute__((noinline)) static double flops_independent(long n, double x)
{
    /* different starting values: equal ones let the compiler merge the eight sums into one chain */
    double s0 = 0, s1 = 1, s2 = 2, s3 = 3, s4 = 4, s5 = 5, s6 = 6, s7 = 7;
    for (long i = 0; i < n; i++) {
        s0 += x;
        s1 += x;
        s2 += x;
        s3 += x;
        s4 += x;
        s5 += x;
        s6 += x;
        s7 += x;
    }
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
}

__attribute__((noinline)) static double flops_chained(long n, double x)
{
    double s = 0;
    for (long i = 0; i < n; i++) {
        s += x;
        s += x;
        s += x;
        s += x;
        s += x;
        s += x;
        s += x;
        s += x;
    }
    return s;
}

/* Eight independent quotients, two to a 16-byte vector (SSE2's divpd, as a compiler divides a
 * vectorised loop of independent divisions: a stencil's / dx2), in registers: seconds per division
 * at that rate.  GCC and Clang vector extensions (what perfeq's instrumented code needs anyway). */
typedef double perfeq__v2d __attribute__((vector_size(16)));
__attribute__((noinline)) static double divide(long n, double d)
{
    perfeq__v2d q0 = {1, 2}, q1 = {3, 4}, q2 = {5, 6}, q3 = {7, 8}, dv = {d, d};
    for (long i = 0; i < n; i++) {
        q0 /= dv;
        q1 /= dv;
        q2 /= dv;
        q3 /= dv;
    }
    perfeq__v2d s = (q0 + q1) + (q2 + q3);
    return s[0] + s[1];
}

/* Eight independent chains of libm calls, half exp and half log (each chain stays near its fixed
 * point): what a call of a transcendental function costs when calls can overlap. */
__attribute__((noinline)) static double transcendental(long n, double x)
{
    double q0 = x, q1 = x, q2 = x, q3 = x, q4 = x, q5 = x, q6 = x, q7 = x;
    for (long i = 0; i < n; i++) {
        q0 = exp(-q0);
        q1 = log(q1 + 2.0);
        q2 = exp(-q2);
        q3 = log(q3 + 2.0);
        q4 = exp(-q4);
        q5 = log(q5 + 2.0);
        q6 = exp(-q6);
        q7 = log(q7 + 2.0);
    }
    return ((q0 + q1) + (q2 + q3)) + ((q4 + q5) + (q6 + q7));
}

#define XORSHIFT(v) (v ^= v << 13, v ^= v >> 7, v ^= v << 17)

__attribute__((noinline)) static uint64_t int_ops(long n, uint64_t seed)
{
    uint64_t a = seed, b = seed * 3 + 1, c = seed * 5 + 2, d = seed * 7 + 3;
    for (long i = 0; i < n; i++) {
        XORSHIFT(a);
        XORSHIFT(b);
        XORSHIFT(c);
        XORSHIFT(d);
    }
    return a ^ b ^ c ^ d;
}

/* A data-dependent branch the compiler cannot turn into a conditional move: the empty volatile asm
 * in one arm must run only when the condition holds. */
__attribute__((noinline)) static long branches(const unsigned char *d, size_t bytes, long passes)
{
    long taken = 0;
    for (long p = 0; p < passes; p++)
        for (size_t i = 0; i < bytes; i++)
            if (d[i]) {
                __asm__ __volatile__("");
                taken++;
            }
    return taken;
}

/* One fixed work quantum: n dependent xorshift steps. */
__attribute__((noinline)) static uint64_t quantum(long n, uint64_t v)
{
    for (long i = 0; i < n; i++)
        XORSHIFT(v);
    return v;
}

/* Fixed work quanta, back to back, for about `seconds` (FWQ, as the noise benchmarks of the ASCI
 * machines measured it): a quantum taking longer than the fastest one was interrupted.  An excess
 * above max(1 us, 5 % of the fastest quantum) counts as one interruption (below it: the quantum's own
 * jitter).  Writes the interruptions per second, their mean length and the sum of their squares per
 * second (the variance a burst of T seconds gains from them, per second: lambda E[L^2]). */
static void noise(long n, long quanta, double *times, double *rate, double *length, double *variance)
{
    double fastest = 1e300, total = 0.0, sum = 0.0, sum2 = 0.0, threshold;
    long events = 0;
    for (long i = 0; i < quanta; i++) {
        double start = probe_seconds();
        sink_integer = quantum(n, (uint64_t)sink_integer + 88172645463325252ULL);
        times[i] = probe_seconds() - start;
    }
    for (long i = 0; i < quanta; i++) {
        fastest = times[i] < fastest ? times[i] : fastest;
        total += times[i];
    }
    threshold = fastest * 0.05 > 1e-6 ? fastest * 0.05 : 1e-6;
    for (long i = 0; i < quanta; i++) {
        double excess = times[i] - fastest;
        if (excess > threshold) {
            events++;
            sum += excess;
            sum2 += excess * excess;
        }
    }
    *rate = (double)events / total;
    *length = events ? sum / (double)events : 0.0;
    *variance = sum2 / total;
}

/* Steps of `quantum` taking about `seconds` each (doubling until a run takes a quarter of it). */
static long quantum_steps(double seconds)
{
    long n = 64;
    for (;;) {
        double start = probe_seconds();
        sink_integer = quantum(n, (uint64_t)sink_integer + 1);
        double took = probe_seconds() - start;
        if (took > seconds / 4 || n > (1L << 40))
            return took > 0 ? (long)((double)n * seconds / took) + 1 : n;
        n *= 2;
    }
}

static int ascending(const void *a, const void *b)
{
    return (int)*(const unsigned char *)a - (int)*(const unsigned char *)b;
}

int main(int argc, char **argv)
{
    static const char *names[] = {"flops_independent", "flops_chained", "int_ops", "branch_predictable",
                                  "branch_random", "divide", "math"};
    MPI_Init(&argc, &argv);
    long n = probe_long(argc, argv, "iterations", 1L << 22), reps = probe_long(argc, argv, "reps", 5);
    long bytes = probe_long(argc, argv, "branch_bytes", 1L << 18);
    if (n < 1 || reps < 1 || bytes < 1)
        probe_fail("iterations, reps and branch_bytes must be at least 1");
    long passes = n / bytes > 1 ? n / bytes : 1;
    double *values = probe_alloc(sizeof(double) * (size_t)reps);
    unsigned char *random_bytes = probe_alloc((size_t)bytes), *sorted_bytes = probe_alloc((size_t)bytes);
    uint64_t state = 0x2545F4914F6CDD1DULL;
    for (long i = 0; i < bytes; i++)
        random_bytes[i] = (unsigned char)(XORSHIFT(state) >> 63);
    memcpy(sorted_bytes, random_bytes, (size_t)bytes);
    qsort(sorted_bytes, (size_t)bytes, 1, ascending);
    for (int k = 0; k < 7; k++) {
        if (!probe_wants(argc, argv, "kernels", names[k]))
            continue;
        int branch = k == 3 || k == 4;
        long iterations = branch ? passes * bytes : k == 6 ? (n / 8 > 1 ? n / 8 : 1) : n;
        double operations = branch ? (double)iterations : k == 2 ? 24.0 * (double)n : 8.0 * (double)iterations;
        for (long r = -1; r < reps; r++) { /* r = -1: warm up (caches, predictor, clock) */
            double start = probe_seconds();
            if (k == 0)
                sink_double = flops_independent(n, one_billionth);
            else if (k == 1)
                sink_double = flops_chained(n, one_billionth);
            else if (k == 2)
                sink_integer = int_ops(n, (uint64_t)sink_integer + 88172645463325252ULL);
            else if (k == 5)
                sink_double = divide(n, 1.0 + one_billionth);
            else if (k == 6)
                sink_double = transcendental(iterations, 0.5 + one_billionth);
            else
                sink_integer = (uint64_t)branches(k == 3 ? sorted_bytes : random_bytes, (size_t)bytes, passes);
            if (r >= 0)
                values[r] = (probe_seconds() - start) / operations;
        }
        probe_point(names[k], (double)iterations, iterations, values, (int)reps, 0);
    }
    double quantum_seconds = probe_double(argc, argv, "noise_quantum", 2e-5);
    double noise_seconds = probe_double(argc, argv, "noise_seconds", 0.3);
    if (probe_wants(argc, argv, "kernels", "noise")) {
        if (!(quantum_seconds > 0) || !(noise_seconds >= quantum_seconds))
            probe_fail("noise_quantum must be above 0 and noise_seconds at least noise_quantum");
        long steps = quantum_steps(quantum_seconds), quanta = (long)(noise_seconds / quantum_seconds + 0.5);
        double *times = probe_alloc(sizeof(double) * (size_t)quanta);
        double *rates = probe_alloc(sizeof(double) * (size_t)reps), *lengths = probe_alloc(sizeof(double) * (size_t)reps);
        double *variances = probe_alloc(sizeof(double) * (size_t)reps);
        for (long r = 0; r < reps; r++)
            noise(steps, quanta, times, &rates[r], &lengths[r], &variances[r]);
        probe_point("noise_rate", quantum_seconds, quanta, rates, (int)reps, 0);
        probe_point("noise_length", quantum_seconds, quanta, lengths, (int)reps, 0);
        probe_point("noise_variance", quantum_seconds, quanta, variances, (int)reps, 0);
        free(times);
        free(rates);
        free(lengths);
        free(variances);
    }
    free(sorted_bytes);
    free(random_bytes);
    free(values);
    MPI_Finalize();
    return 0;
}
