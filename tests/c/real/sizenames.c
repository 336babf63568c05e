/* A size named like another function's process count (EPCC adept-kernel-mpi: main.c's size =
 * atoi(optarg) for -s, cg.c's int size; MPI_Comm_size(MPI_COMM_WORLD, &size) in a benchmark not
 * run).  Candidates were keyed by name across the unit, the MPI one first: "parameters: (none)",
 * every loop over size constant, -98.7 % at 8x.  Usage: sizenames N */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int other_benchmark(unsigned int s) {          /* never called in these runs */
  int size, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return (int)s + rank;
}

static void kern(unsigned int size) {
  int world_size, world_rank;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int n = size - 2, local_n = n / world_size;
  double *a = malloc(sizeof(double) * size * (local_n + 2)), s = 0;
  for (int it = 0; it < 10; it++)
    for (int i = 1; i < local_n + 1; i++)
      for (int j = 1; j < n + 1; j++) { a[i * size + j] = i + j; s += a[i * size + j]; }
  printf("rank %d %g\n", world_rank, s);
  free(a);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  unsigned int size = 200;
  if (argc > 1) size = atoi(argv[1]);
  if (argc > 2) other_benchmark(size);
  kern(size);
  MPI_Finalize();
  return 0;
}
