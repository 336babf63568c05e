/* Instrumented by perfeq <version> from omp.c: generated, do not edit.
 * Descriptors: <descriptors>
 * Build with the perfeq runtime (perfeq cc), or with -DPERFEQ_OFF for an uninstrumented build. */
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[1] = {
    { "main", 49, 0, 0, 0 }
};
static perfeq_unit_t perfeq__unit
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((unused))
#endif
    = { PERFEQ_ABI_VERSION, "omp.c", "<descriptors>", "<digest>", 1, perfeq__funcs, 0, 0, 0, 0 };
PERFEQ_REGISTER_UNIT(perfeq__unit)
#line 1 "omp.c"
/* omp.c -- OpenMP: parallel for with and without collapse(2), parallel + for (in a block and on
 * consecutive lines), a loop every thread runs whole, reductions (perfeq instrumenter test corpus). */
#include <stdio.h>

#define N 32

static double a[N][N];

int main(void)
{ PERFEQ_FUNC_BEGIN(perfeq__unit, 0) 
    int i, j;
    long sum = 0, diag = 0, count = 0, each = 0, evens = 0;
{ PERFEQ_REGION_TEAM(1); PERFEQ_LOOP_ENTER(0); PERFEQ_TRIPS_LT(2, (0), (N), 1);
#line 13 "omp.c"
#pragma omp parallel for private(j)
    for (i = 0; i < N; i++)
        {  PERFEQ_MT_LOCAL { PERFEQ_BLOCK_L(3); PERFEQ_TRIPS_LT_L(4, (0), (N), 1); for (j = 0; j < N; j++)
            { a[i][j] = i + j; } } } } PERFEQ_BLOCK(5); 
{ PERFEQ_REGION_TEAM(7); PERFEQ_LOOP_ENTER(6);
#line 17 "omp.c"
#pragma omp parallel for collapse(2) reduction(+ : sum)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            {  PERFEQ_MT_LOCAL PERFEQ_BLOCK_L(8); sum += (long)a[i][j]; } } PERFEQ_BLOCK(9); 
{ PERFEQ_REGION_TEAM(10);
#line 21 "omp.c"
#pragma omp parallel
    { PERFEQ_MT_LOCAL PERFEQ_BLOCK_L(11); 
        long mine = 0;
{ PERFEQ_BLOCK_L(12);
#line 24 "omp.c"
#pragma omp for
        for (i = 0; i < N; i++) { PERFEQ_BLOCK_L(13); 
            if (PERFEQ_BRANCH_L(14, (i % 2)))
                {  PERFEQ_BLOCK_L(32); mine += (long)a[i][i]; }
        } } PERFEQ_BLOCK_L(33); 
#pragma omp critical
        diag += mine;
#pragma omp atomic
        count++;
    } } PERFEQ_BLOCK(34); 
{ PERFEQ_REGION_TEAM(36); PERFEQ_LOOP_ENTER(35); PERFEQ_TRIPS_LT(37, (0), (N), 1);
#line 34 "omp.c"
#pragma omp parallel for reduction(+ : count)
    for (i = 0; i < N; i++)
        { count += i > N / 2 ? 1 : 0; } } PERFEQ_BLOCK(38); 
{ PERFEQ_REGION_TEAM(39);
#line 37 "omp.c"
#pragma omp parallel reduction(+ : each)
    {  PERFEQ_MT_LOCAL PERFEQ_BLOCK_L(40); { PERFEQ_BLOCK_L(41); PERFEQ_TRIPS_LT_L(42, (0), (4), 1); for (int k = 0; k < 4; k++)
        { each += 1; } } } } PERFEQ_BLOCK(43); 
{ PERFEQ_REGION_TEAM(44);
#line 40 "omp.c"
#pragma omp parallel
{  PERFEQ_MT_LOCAL PERFEQ_BLOCK_L(45); { PERFEQ_BLOCK_L(46);
#line 41 "omp.c"
#pragma omp for reduction(+ : evens)
    for (i = 0; i < N; i += 2)
        {  PERFEQ_BLOCK_L(47); evens++; } } } } PERFEQ_BLOCK(48); 
    printf("sum %ld diag %ld count_ok %d each_ok %d evens %ld\n", sum, diag, count >= 16, each % 4 == 0 && each > 0,
           evens);
    return 0;
}
