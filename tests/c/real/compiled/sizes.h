/* Sizes compiled in, as PolyBench and the NAS benchmarks do: a -D of the compile line, or a data
 * set chosen with -DLARGE that sets a size in the program's own header. */
#ifndef N
#define N 64
#endif
#ifdef LARGE
#define NX 200
#else
#define NX 100
#endif
#define REPS 3           /* the same in every build: a constant, not a parameter */
#define M (2 * N)        /* a macro of a macro: the loop bound reads M */
#define LOOP_BOUND(x, y) y  /* PolyBench's POLYBENCH_LOOP_BOUND: the bound is the kernel's parameter */
#define PB_N LOOP_BOUND(N, n)
#define HALF_OF(a) ((a) / 2)
