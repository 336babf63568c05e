/* The process count and rank through a communicator variable that is the world (EPCC's mixed-mode
 * benchmarks, parallelEnvironment.c: comm = MPI_COMM_WORLD; MPI_Comm_size(comm, &numMPIprocs);).
 * They were not P and the rank: the loop over numMPIprocs * n fitted (NO form within 5 %), the
 * root's branch a ratio shared over the ranks: ops -29 % at 8x, the slowest rank -65 %.
 * Usage: worldalias N */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

MPI_Comm comm;
int numMPIprocs, myMPIRank;

static void initParallelEnv(void) {
  comm = MPI_COMM_WORLD;
  MPI_Comm_size(comm, &numMPIprocs);
  MPI_Comm_rank(comm, &myMPIRank);
}

static void scatterKernel(int totalReps, int dataSize, int *sendBuf, int *recvBuf) {
  int total = numMPIprocs * dataSize;
  for (int rep = 0; rep < totalReps; rep++) {
    if (myMPIRank == 0)
      for (int i = 0; i < total; i++) sendBuf[i] = i + rep;
    MPI_Scatter(sendBuf, dataSize, MPI_INT, recvBuf, dataSize, MPI_INT, 0, comm);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  initParallelEnv();
  int n = argc > 1 ? atoi(argv[1]) : 256;
  int *s = malloc(sizeof(int) * n * numMPIprocs), *r = malloc(sizeof(int) * n);
  scatterKernel(100, n, s, r);
  if (myMPIRank == 0) printf("%d\n", r[n - 1]);
  free(s); free(r);
  MPI_Finalize();
  return 0;
}
