/* main without a return, compiled as C90 (ORNL minisweep builds with -ansi: its main ends with a
   call): the plain build exits 0 (MPI_Finalize left 0 in the return register), the instrumented one
   exited 32 before perfeq put `return 0;` at the end of such a main.  Usage: noreturn */
#include <mpi.h>
#include <stdio.h>
static int finalize(void) { return MPI_Finalize(); }
int main(int argc, char **argv) {
  int i;
  double s = 0;
  MPI_Init(&argc, &argv);
  for (i = 0; i < 1000; i++) s += i * 0.5;
  printf("s = %g\n", s);
  finalize();
}
