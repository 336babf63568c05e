/* A halo exchange over a list of partners built at run time (miniAMR's comm_partner[] and
 * num_comm_partners[], issue 19): the loop over the partners is empty on one process, and the
 * message length is an array element the run fills in. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 64, npart = 0, partner[2], len[2];
    MPI_Request req[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank > 0) { partner[npart] = rank - 1; len[npart] = 4; npart++; }
    if (rank < size - 1) { partner[npart] = rank + 1; len[npart] = 4; npart++; }
    double *out = calloc(8, sizeof(double)), *in = calloc(8, sizeof(double)), sum = 0.0;
    for (int step = 0; step < n; step++) {
        int k = 0;
        for (int i = 0; i < npart; i++) {
            MPI_Irecv(in + 4 * i, len[i], MPI_DOUBLE, partner[i], 0, MPI_COMM_WORLD, &req[k++]);
            MPI_Isend(out, len[i], MPI_DOUBLE, partner[i], 0, MPI_COMM_WORLD, &req[k++]);
        }
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 8; i++) sum += in[i] + (out[i] = step + rank);
    }
    if (rank == 0) printf("%.1f\n", sum);
    free(out); free(in);
    MPI_Finalize();
    return 0;
}
