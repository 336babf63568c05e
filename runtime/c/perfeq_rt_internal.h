/* perfeq_rt_internal.h -- what the generated PMPI wrappers (perfeq_mpi.c) need from perfeq_rt.c.
 *
 * Part of perfeq stage 2 (runtime/).  Not for instrumented code: the instrumenter only emits the
 * macros of perfeq_rt.h.  perfeq_mpi.c is linked only into programs that use MPI; perfeq_rt.c
 * finds out through the weak symbol perfeq__mpi_linked.
 */
#ifndef PERFEQ_RT_INTERNAL_H
#define PERFEQ_RT_INTERNAL_H

#include "perfeq_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where an MPI call happens: the context and the MPI call site announced by PERFEQ_MPI, or the
 * innermost context of the calling thread with site -1 ("unattributed"), or no context at all. */
typedef struct perfeq__mpi_where {
    perfeq_ctx_t *ctx;
    int site;
} perfeq__mpi_where_t;

/* Take (and clear) the announced MPI call site of the calling thread. */
void perfeq__mpi_take_site(perfeq__mpi_where_t *where);

/* Count one call of the MPI function `call` (a string literal; records are keyed by its address)
 * at `where`: `elements` and `bytes` of this rank's block, the communicator's size and this rank's
 * rank in it (-1 when the call has no communicator), and the root (-1 when the call has none).
 * A synchronising call gives the clock (perfeq__mpi_now) at its entry and return: its compute
 * burst (since the thread's previous synchronising call returned) and its time inside are
 * recorded; other calls give 0, 0 and leave the burst running. */
void perfeq__mpi_record(const perfeq__mpi_where_t *where, const char *call, long long elements,
                        long long bytes, int comm_size, int comm_rank, int root, unsigned long long entered,
                        unsigned long long left);

/* CLOCK_MONOTONIC in nanoseconds (0 when the runtime was compiled with -DPERFEQ_NO_TIMES). */
unsigned long long perfeq__mpi_now(void);

/* MPI is initialised: rank and size in MPI_COMM_WORLD.  Opens the trace and writes its header. */
void perfeq__mpi_started(int rank, int nranks);

/* MPI is being finalised: write the trace now (before PMPI_Finalize). */
void perfeq__mpi_finalizing(void);

/* Defined (as 1) in perfeq_mpi.c; perfeq_rt.c declares it weak to learn whether MPI is linked. */
extern const int perfeq__mpi_linked;

#ifdef __cplusplus
}
#endif

#endif /* PERFEQ_RT_INTERNAL_H */
