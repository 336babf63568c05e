/* A program global with the name of a libc function the runtime calls (TUM's Parallelized Jacobi
 * Method, heat.c: `double *time;`, legal C where <time.h> is not included).  The runtime's trace
 * header called time(NULL), which the linker bound to the program's data object: the instrumented
 * binary died with SIGSEGV when it wrote its trace; the plain one exits 0.  Usage: globaltime N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

double *time; /* not the libc function: an array of timings */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 100;
    time = calloc(n, sizeof(double));
    double s = 0;
    for (int i = 0; i < n; i++) {
        time[i] = i * 0.5;
        s += time[i];
    }
    printf("%g\n", s);
    free(time);
    MPI_Finalize();
    return 0;
}
