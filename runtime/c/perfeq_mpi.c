/* perfeq_mpi.c -- PMPI wrappers of the perfeq runtime: count MPI calls per context and call site.
 *
 * GENERATED from runtime/mpi/calls.py (the MPI_CALLS table) with runtime/mpi/templates/perfeq_mpi.c.j2;
 * do not edit: change the table or the template and run `python -m perfeq.runtime.mpi.wrappers`.
 *
 * Part of perfeq stage 2 (runtime/).  Linked only into programs that use MPI.  Every wrapper takes
 * the MPI call site announced by PERFEQ_MPI, calls the PMPI function, and records the call with
 * this rank's block (count * type size), the communicator's size, this rank's rank in it and the
 * root; a synchronising call (collectives, blocking point-to-point calls) also gives the clock at
 * its entry and return, for its compute burst and its time inside (trace version 2).  A call
 * whose count is an array over the ranks (MPI_Alltoallv's sendcounts[]) records the sum of the
 * array as elements and, as bytes, the blocks for the other ranks times the type size: what this
 * rank sends.  MPI_Init opens the trace once the rank is known; MPI_Finalize writes it
 * before PMPI_Finalize.
 */
#include <mpi.h>

#include "perfeq_rt.h"
#include "perfeq_rt_internal.h"

const int perfeq__mpi_linked = 1;

/* The size of one element; 0 for MPI_DATATYPE_NULL (ignored arguments) or on error. */
static long long perfeq__type_size(MPI_Datatype type)
{
    int size = 0;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return 0;
    return size;
}

/* Size of `comm` and this rank's rank in it; -1 for MPI_COMM_NULL, an intercommunicator (its
 * count arrays are indexed by the remote group, and its messages are not modeled) or on error. */
static void perfeq__comm_info(MPI_Comm comm, int *size, int *rank)
{
    int inter = 0;
    *size = -1;
    *rank = -1;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
        PMPI_Comm_size(comm, size) != MPI_SUCCESS || PMPI_Comm_rank(comm, rank) != MPI_SUCCESS) {
        *size = -1;
        *rank = -1;
    }
}

/* Sum of counts[0..size) without entry `skip` (-1: none); 0 when the size is unknown. */
static long long perfeq__sum_counts(const int counts[], int size, int skip)
{
    long long total = 0;
    int j;
    if (counts == NULL || size <= 0)
        return 0;
    for (j = 0; j < size; j++)
        if (j != skip)
            total += counts[j];
    return total;
}

static void perfeq__started(void)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    perfeq__mpi_started(rank, size);
}

/* init */
int MPI_Init(int *argc, char ***argv)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Init(argc, argv);
    if (perfeq__rc == MPI_SUCCESS)
        perfeq__started();
    perfeq__mpi_record(&perfeq__where, "MPI_Init", 0, 0, perfeq__size, perfeq__rank, -1,
                       0, 0);
    return perfeq__rc;
}

/* init */
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Init_thread(argc, argv, required, provided);
    if (perfeq__rc == MPI_SUCCESS)
        perfeq__started();
    perfeq__mpi_record(&perfeq__where, "MPI_Init_thread", 0, 0, perfeq__size, perfeq__rank, -1,
                       0, 0);
    return perfeq__rc;
}

/* finalize */
int MPI_Finalize(void)
{
    perfeq__mpi_where_t perfeq__where;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__mpi_record(&perfeq__where, "MPI_Finalize", 0, 0, -1, -1, -1, 0, 0);
    perfeq__mpi_finalizing();
    return PMPI_Finalize();
}

/* comm_size */
int MPI_Comm_size(MPI_Comm comm, int *size)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Comm_size(comm, size);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__mpi_record(&perfeq__where, "MPI_Comm_size", 0, 0, perfeq__size, perfeq__rank, -1,
                       0, 0);
    return perfeq__rc;
}

/* comm_rank */
int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Comm_rank(comm, rank);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__mpi_record(&perfeq__where, "MPI_Comm_rank", 0, 0, perfeq__size, perfeq__rank, -1,
                       0, 0);
    return perfeq__rc;
}

/* send; messages: point-to-point */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Send(buf, count, datatype, dest, tag, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    if (dest == MPI_PROC_NULL)
        perfeq__size = 0; /* no partner: no message, no bytes (docs/trace.md) */
    perfeq__elements = perfeq__size == 0 ? 0 : (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Send", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* send; messages: point-to-point */
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Ssend(buf, count, datatype, dest, tag, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    if (dest == MPI_PROC_NULL)
        perfeq__size = 0; /* no partner: no message, no bytes (docs/trace.md) */
    perfeq__elements = perfeq__size == 0 ? 0 : (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Ssend", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* recv */
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Recv", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* sendrecv; messages: point-to-point */
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    if (dest == MPI_PROC_NULL)
        perfeq__size = 0; /* no partner: no message, no bytes (docs/trace.md) */
    perfeq__elements = perfeq__size == 0 ? 0 : (long long)sendcount;
    perfeq__mpi_record(&perfeq__where, "MPI_Sendrecv", perfeq__elements,
                       perfeq__elements * perfeq__type_size(sendtype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* send; messages: point-to-point */
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Bsend(buf, count, datatype, dest, tag, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    if (dest == MPI_PROC_NULL)
        perfeq__size = 0; /* no partner: no message, no bytes (docs/trace.md) */
    perfeq__elements = perfeq__size == 0 ? 0 : (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Bsend", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* send; messages: point-to-point */
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Rsend(buf, count, datatype, dest, tag, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    if (dest == MPI_PROC_NULL)
        perfeq__size = 0; /* no partner: no message, no bytes (docs/trace.md) */
    perfeq__elements = perfeq__size == 0 ? 0 : (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Rsend", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* sendrecv; messages: point-to-point */
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    if (dest == MPI_PROC_NULL)
        perfeq__size = 0; /* no partner: no message, no bytes (docs/trace.md) */
    perfeq__elements = perfeq__size == 0 ? 0 : (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Sendrecv_replace", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* isend; messages: point-to-point */
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    if (dest == MPI_PROC_NULL)
        perfeq__size = 0; /* no partner: no message, no bytes (docs/trace.md) */
    perfeq__elements = perfeq__size == 0 ? 0 : (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Isend", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, 0, 0);
    return perfeq__rc;
}

/* isend; messages: point-to-point */
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Issend(buf, count, datatype, dest, tag, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    if (dest == MPI_PROC_NULL)
        perfeq__size = 0; /* no partner: no message, no bytes (docs/trace.md) */
    perfeq__elements = perfeq__size == 0 ? 0 : (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Issend", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, 0, 0);
    return perfeq__rc;
}

/* isend; messages: point-to-point */
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Irsend(buf, count, datatype, dest, tag, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    if (dest == MPI_PROC_NULL)
        perfeq__size = 0; /* no partner: no message, no bytes (docs/trace.md) */
    perfeq__elements = perfeq__size == 0 ? 0 : (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Irsend", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, 0, 0);
    return perfeq__rc;
}

/* irecv */
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Irecv", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, 0, 0);
    return perfeq__rc;
}

/* wait */
int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Wait(request, status);
    perfeq__left = perfeq__mpi_now();
    perfeq__mpi_record(&perfeq__where, "MPI_Wait", 0, 0, perfeq__size, perfeq__rank, -1,
                       perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* waitall */
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Waitall(count, array_of_requests, array_of_statuses);
    perfeq__left = perfeq__mpi_now();
    perfeq__mpi_record(&perfeq__where, "MPI_Waitall", 0, 0, perfeq__size, perfeq__rank, -1,
                       perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* barrier; messages: recursive doubling */
int MPI_Barrier(MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Barrier(comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__mpi_record(&perfeq__where, "MPI_Barrier", 0, 0, perfeq__size, perfeq__rank, -1,
                       perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* bcast; messages: binomial bcast */
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Bcast(buffer, count, datatype, root, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Bcast", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, root, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* reduce; messages: binomial reduce */
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Reduce", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, root, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* allreduce; messages: recursive doubling */
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Allreduce", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* gather; messages: binomial gather */
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(sendbuf == MPI_IN_PLACE ? recvcount : sendcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Gather", perfeq__elements,
                       perfeq__elements * perfeq__type_size((sendbuf == MPI_IN_PLACE ? recvtype : sendtype)),
                       perfeq__size, perfeq__rank, root, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* gatherv; messages: linear gather */
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(sendbuf == MPI_IN_PLACE ? (perfeq__rank >= 0 ? recvcounts[perfeq__rank] : 0) : sendcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Gatherv", perfeq__elements,
                       perfeq__elements * perfeq__type_size((sendbuf == MPI_IN_PLACE ? recvtype : sendtype)),
                       perfeq__size, perfeq__rank, root, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* scatter; messages: binomial scatter */
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(recvbuf == MPI_IN_PLACE ? sendcount : recvcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Scatter", perfeq__elements,
                       perfeq__elements * perfeq__type_size((recvbuf == MPI_IN_PLACE ? sendtype : recvtype)),
                       perfeq__size, perfeq__rank, root, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* allgather; messages: ring */
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(sendbuf == MPI_IN_PLACE ? recvcount : sendcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Allgather", perfeq__elements,
                       perfeq__elements * perfeq__type_size((sendbuf == MPI_IN_PLACE ? recvtype : sendtype)),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* allgatherv; messages: ring */
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(sendbuf == MPI_IN_PLACE ? (perfeq__rank >= 0 ? recvcounts[perfeq__rank] : 0) : sendcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Allgatherv", perfeq__elements,
                       perfeq__elements * perfeq__type_size((sendbuf == MPI_IN_PLACE ? recvtype : sendtype)),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* alltoall; messages: pairwise exchange */
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(sendbuf == MPI_IN_PLACE ? recvcount : sendcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Alltoall", perfeq__elements,
                       perfeq__elements * perfeq__type_size((sendbuf == MPI_IN_PLACE ? recvtype : sendtype)),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* alltoallv; messages: pairwise exchange, summed counts */
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(sendbuf == MPI_IN_PLACE ? perfeq__sum_counts(recvcounts, perfeq__size, -1) : perfeq__sum_counts(sendcounts, perfeq__size, -1));
    perfeq__mpi_record(&perfeq__where, "MPI_Alltoallv", perfeq__elements,
                       (sendbuf == MPI_IN_PLACE ? perfeq__sum_counts(recvcounts, perfeq__size, perfeq__rank) : perfeq__sum_counts(sendcounts, perfeq__size, perfeq__rank)) * perfeq__type_size((sendbuf == MPI_IN_PLACE ? recvtype : sendtype)),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* scatterv; messages: linear scatter, summed counts */
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(perfeq__rank == root ? perfeq__sum_counts(sendcounts, perfeq__size, -1) : recvcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Scatterv", perfeq__elements,
                       (perfeq__rank == root ? perfeq__sum_counts(sendcounts, perfeq__size, perfeq__rank) * perfeq__type_size(sendtype) : (long long)recvcount * perfeq__type_size(recvtype)),
                       perfeq__size, perfeq__rank, root, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* scan; messages: recursive doubling scan */
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Scan", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* exscan; messages: recursive doubling scan */
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Exscan", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* reduce_scatter_block; messages: pairwise exchange */
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)recvcount;
    perfeq__mpi_record(&perfeq__where, "MPI_Reduce_scatter_block", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* reduce_scatter; messages: pairwise exchange, summed counts */
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    unsigned long long perfeq__entered, perfeq__left;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__entered = perfeq__mpi_now();
    perfeq__rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    perfeq__left = perfeq__mpi_now();
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)perfeq__sum_counts(recvcounts, perfeq__size, -1);
    perfeq__mpi_record(&perfeq__where, "MPI_Reduce_scatter", perfeq__elements,
                       perfeq__sum_counts(recvcounts, perfeq__size, perfeq__rank) * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, perfeq__entered, perfeq__left);
    return perfeq__rc;
}

/* ibarrier; messages: recursive doubling */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Ibarrier(comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__mpi_record(&perfeq__where, "MPI_Ibarrier", 0, 0, perfeq__size, perfeq__rank, -1,
                       0, 0);
    return perfeq__rc;
}

/* ibcast; messages: binomial bcast */
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Ibcast(buffer, count, datatype, root, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Ibcast", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, root, 0, 0);
    return perfeq__rc;
}

/* ireduce; messages: binomial reduce */
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Ireduce", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, root, 0, 0);
    return perfeq__rc;
}

/* iallreduce; messages: recursive doubling */
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)count;
    perfeq__mpi_record(&perfeq__where, "MPI_Iallreduce", perfeq__elements,
                       perfeq__elements * perfeq__type_size(datatype),
                       perfeq__size, perfeq__rank, -1, 0, 0);
    return perfeq__rc;
}

/* igather; messages: binomial gather */
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(sendbuf == MPI_IN_PLACE ? recvcount : sendcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Igather", perfeq__elements,
                       perfeq__elements * perfeq__type_size((sendbuf == MPI_IN_PLACE ? recvtype : sendtype)),
                       perfeq__size, perfeq__rank, root, 0, 0);
    return perfeq__rc;
}

/* iscatter; messages: binomial scatter */
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(recvbuf == MPI_IN_PLACE ? sendcount : recvcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Iscatter", perfeq__elements,
                       perfeq__elements * perfeq__type_size((recvbuf == MPI_IN_PLACE ? sendtype : recvtype)),
                       perfeq__size, perfeq__rank, root, 0, 0);
    return perfeq__rc;
}

/* iallgather; messages: ring */
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(sendbuf == MPI_IN_PLACE ? recvcount : sendcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Iallgather", perfeq__elements,
                       perfeq__elements * perfeq__type_size((sendbuf == MPI_IN_PLACE ? recvtype : sendtype)),
                       perfeq__size, perfeq__rank, -1, 0, 0);
    return perfeq__rc;
}

/* ialltoall; messages: pairwise exchange */
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    perfeq__mpi_where_t perfeq__where;
    int perfeq__rc, perfeq__size = -1, perfeq__rank = -1;
    long long perfeq__elements;
    perfeq__mpi_take_site(&perfeq__where);
    perfeq__rc = PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    perfeq__comm_info(comm, &perfeq__size, &perfeq__rank);
    perfeq__elements = (long long)(sendbuf == MPI_IN_PLACE ? recvcount : sendcount);
    perfeq__mpi_record(&perfeq__where, "MPI_Ialltoall", perfeq__elements,
                       perfeq__elements * perfeq__type_size((sendbuf == MPI_IN_PLACE ? recvtype : sendtype)),
                       perfeq__size, perfeq__rank, -1, 0, 0);
    return perfeq__rc;
}
