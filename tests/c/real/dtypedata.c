/* A derived datatype whose length is data: MPI_Type_vector(local - 2, ...) with the last rank taking
   the remainder (`if (rank == size - 1) local += n % size;`, HPC-Challenge-Group-D's MPI Jacobi).
   The type's size could not be told from its construction, so its bytes per element were the first
   run's, at every size, with no word in the model (-93.9 % at 8x); now the bytes per call are fitted
   over the runs and named in the fallbacks.  Usage: dtypedata N */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, n = atoi(argv[1]);
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t local = n / size + 2;
    if (rank == size - 1)
        local += n % size;
    MPI_Datatype row;
    MPI_Type_vector(local - 2, 1, 1, MPI_DOUBLE, &row);
    MPI_Type_commit(&row);
    double *v = calloc(local, sizeof *v), *w = calloc((size_t)n + 2, sizeof *w), s = 0.0;
    for (size_t i = 0; i < local; i++)
        v[i] = rank + 0.5 * i;
    int up = (rank + 1) % size, down = (rank + size - 1) % size;
    for (int it = 0; it < 10; it++)
        MPI_Sendrecv(&v[1], 1, row, up, 0, w, n + 2, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (size_t i = 0; i < local; i++)
        s += w[i];
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%zu %g\n", local, s);
    MPI_Type_free(&row);
    free(v);
    free(w);
    MPI_Finalize();
    return 0;
}
