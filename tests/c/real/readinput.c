/* Sizes read by a helper through pointer parameters, as Pacheco's Get_input does: rank 0 scanf()s
 * into a_p, b_p, n_p (no address taken in the helper: "scanf("%lf %lf %d", a_p, b_p, n_p)"), and
 * MPI_Bcast gives them to the others; the caller passes &a, &b, &n.  Before, n was no parameter
 * (even named with --param: nothing recorded it) and the trapezoid loop was a constant: -75 % on
 * its own runs, -97 % at 8x.  Now n is an input parameter recorded after the call.
 * usage: echo "a b n" | readinput */
#include <stdio.h>
#include <mpi.h>

static void get_input(int rank, double *a_p, double *b_p, int *n_p)
{
    if (rank == 0)
        if (scanf("%lf %lf %d", a_p, b_p, n_p) != 3)
            *n_p = 0;
    MPI_Bcast(a_p, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(b_p, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(n_p, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static double trap(double left, double right, int count, double h)
{
    double sum = (left * left + right * right) / 2.0, x;
    int i;
    for (i = 1; i <= count - 1; i++) {
        x = left + i * h;
        sum += x * x;
    }
    return sum * h;
}

int main(int argc, char **argv)
{
    int rank, size, n, local_n;
    double a, b, h, local_a, local_b, local, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    get_input(rank, &a, &b, &n);
    h = (b - a) / n;
    local_n = n / size;
    local_a = a + rank * local_n * h;
    local_b = local_a + local_n * h;
    local = trap(local_a, local_b, local_n, h);
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.6f\n", total);
    MPI_Finalize();
    return 0;
}
