/* perfeq network probe (PMB-like): MPI point-to-point and collective times against message size.
 *
 *   pingpong_intra / pingpong_inter   ranks 0 and 1 send a message back and forth; one value is
 *                                     half a round trip (seconds); _intra when both share a node
 *                                     (MPI_COMM_TYPE_SHARED), _inter when they do not
 *   bcast, allreduce, alltoall        seconds per call, the slowest rank's (MPI_MAX over ranks);
 *                                     bcast from rank 0, allreduce of doubles (MPI_SUM), alltoall
 *                                     with `x` bytes per pair of processes
 *   barrier                           seconds per MPI_Barrier, the slowest rank's; x = processes
 *
 * Each point repeats the operation until it has taken about min_time seconds (the count comes from
 * a warm-up of 1, 4, 16, ... calls, the slowest rank's, the same on every rank), `reps` times between
 * barriers.  Arguments (key=value), each
 * list present runs that part: pingpong=0,1,4,... bcast=8,... allreduce=8,... alltoall=8,...
 * barrier=1 reps=5 min_time=0.005
 */
#include "probe.h"

#define MAX_ITERS 100000L

enum operation { PINGPONG, BCAST, ALLREDUCE, ALLTOALL, BARRIER, OPERATIONS };
static const char *keys[OPERATIONS] = {"pingpong", "bcast", "allreduce", "alltoall", "barrier"};

static char *send_buffer, *receive_buffer;
static int rank, procs;

static void operate(enum operation op, long bytes, long iters)
{
    for (long i = 0; i < iters; i++) {
        if (op == PINGPONG) {
            if (rank == 0) {
                MPI_Send(send_buffer, (int)bytes, MPI_BYTE, 1, 17, MPI_COMM_WORLD);
                MPI_Recv(receive_buffer, (int)bytes, MPI_BYTE, 1, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            else if (rank == 1) {
                MPI_Recv(receive_buffer, (int)bytes, MPI_BYTE, 0, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(send_buffer, (int)bytes, MPI_BYTE, 0, 17, MPI_COMM_WORLD);
            }
        }
        else if (op == BCAST)
            MPI_Bcast(send_buffer, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        else if (op == ALLREDUCE)
            MPI_Allreduce(send_buffer, receive_buffer, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else if (op == ALLTOALL)
            MPI_Alltoall(send_buffer, (int)bytes, MPI_BYTE, receive_buffer, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        else
            MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* Seconds per operation on this rank: per message one way for the ping-pong, per call otherwise. */
static double timed(enum operation op, long bytes, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double start = probe_seconds();
    operate(op, bytes, iters);
    return (probe_seconds() - start) / (double)iters / (op == PINGPONG ? 2.0 : 1.0);
}

/* The slowest rank's value (rank 0's alone for the ping-pong: it times whole round trips). */
static double slowest(enum operation op, double mine)
{
    double result = mine;
    if (op != PINGPONG)
        MPI_Reduce(&mine, &result, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return result;
}

int main(int argc, char **argv)
{
    long sizes[OPERATIONS][PROBE_MAX_LIST];
    int counts[OPERATIONS], intra = 1;
    long largest = 8;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    long reps = probe_long(argc, argv, "reps", 5), expect = probe_long(argc, argv, "procs", 0);
    double min_time = probe_double(argc, argv, "min_time", 0.005);
    if (reps < 1)
        probe_fail("reps must be at least 1");
    if (expect && expect != procs)
        probe_fail("this MPI job has %d processes, %ld were asked for: the launcher did not start one MPI "
                   "job (srun needs the MPI plugin of the MPI library, e.g. srun --mpi=pmi2)", procs, expect);
    for (int op = 0; op < OPERATIONS; op++) {
        counts[op] = probe_list(argc, argv, keys[op], "", sizes[op]);
        for (int s = 0; s < counts[op]; s++) {
            long need = op == ALLTOALL ? sizes[op][s] * procs : sizes[op][s];
            if (sizes[op][s] > (1L << 30) || (op == ALLREDUCE && (sizes[op][s] < 8 || sizes[op][s] % 8)))
                probe_fail("%s=%ld: sizes are at most 1 GiB, and multiples of 8 for allreduce", keys[op], sizes[op][s]);
            if (need > largest)
                largest = need;
        }
    }
    if (counts[PINGPONG] && procs < 2)
        probe_fail("the ping-pong needs at least 2 processes");
    send_buffer = probe_alloc((size_t)largest);
    receive_buffer = probe_alloc((size_t)largest);
    for (long i = 0; i < largest / 8; i++)
        ((double *)send_buffer)[i] = ((double *)receive_buffer)[i] = 1.0;
    if (procs >= 2) { /* do ranks 0 and 1 share a node? */
        MPI_Comm node;
        int node_rank, leader, *leaders = probe_alloc(sizeof(int) * (size_t)procs);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &node_rank);
        leader = node_rank == 0 ? rank : 0;
        MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MAX, node);
        MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
        intra = leaders[0] == leaders[1];
        MPI_Comm_free(&node);
        free(leaders);
    }
    double *values = probe_alloc(sizeof(double) * (size_t)reps);
    for (int op = 0; op < OPERATIONS; op++)
        for (int s = 0; s < counts[op]; s++) {
            long bytes = sizes[op][s], iters;
            operate(op, bytes, 1);
            for (iters = 1;; iters *= 4) { /* warm up until a tenth of min_time: the count to time */
                double estimate = timed(op, bytes, iters) * (op == PINGPONG ? 2.0 : 1.0);
                MPI_Allreduce(MPI_IN_PLACE, &estimate, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (estimate * (double)iters >= 0.1 * min_time || iters >= MAX_ITERS) {
                    iters = (long)(min_time / estimate) + 1;
                    break;
                }
            }
            iters = iters > MAX_ITERS ? MAX_ITERS : iters;
            for (long r = 0; r < reps; r++)
                values[r] = slowest(op, timed(op, bytes, iters));
            const char *curve = op == PINGPONG ? (intra ? "pingpong_intra" : "pingpong_inter") : keys[op];
            probe_point(curve, op == BARRIER ? (double)procs : (double)bytes, iters, values, (int)reps, 0);
        }
    free(values);
    free(receive_buffer);
    free(send_buffer);
    MPI_Finalize();
    return 0;
}
