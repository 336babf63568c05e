/* Message sizes real codes write: derived datatypes (a column by MPI_Type_vector, a row by
 * MPI_Type_contiguous, the interior by MPI_Type_create_subarray with its sizes in an initialised
 * array), a count kept in an array element (counts[1]) and sizes in a struct (g.nx from argv).
 * Their bytes were the first run's, measured; they are symbolic in g.nx. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int nx, ny;
} Grid;

int main(int argc, char **argv)
{
    Grid g;
    int rank, size, counts[2];
    MPI_Init(&argc, &argv);
    g.nx = argc > 1 ? atoi(argv[1]) : 16;
    g.ny = g.nx + 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counts[0] = g.nx;
    counts[1] = 2 * g.nx;
    double *a = calloc((size_t)(g.nx + 2) * (g.ny + 2), sizeof *a);
    MPI_Datatype column, row, interior;
    MPI_Type_vector(g.ny, 1, g.nx + 2, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    MPI_Type_contiguous(g.nx, MPI_DOUBLE, &row);
    MPI_Type_commit(&row);
    int sizes[2] = {g.ny + 2, g.nx + 2}, sub[2] = {g.ny, g.nx}, start[2] = {1, 1};
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &interior);
    MPI_Type_commit(&interior);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int t = 0; t < 3; t++) {
        MPI_Sendrecv(a + 1, 1, column, right, 0, a, 1, column, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(a + 1, 1, row, right, 1, a, 1, row, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Bcast(a, 1, interior, 0, MPI_COMM_WORLD);
        MPI_Bcast(a, counts[1], MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("%g\n", a[0] + g.nx);
    MPI_Type_free(&column);
    MPI_Type_free(&row);
    MPI_Type_free(&interior);
    free(a);
    MPI_Finalize();
    return 0;
}
