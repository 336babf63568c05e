#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "solver.h"
void fail(const char *msg) { fprintf(stderr, "%s\n", msg); MPI_Abort(MPI_COMM_WORLD, 1); }
void init(double *a, int n) { if (!a) fail("no memory"); for (int i = 0; i < n; i++) a[i] = i % 10; }
static double local(const double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * a[i]; return s; }
double solve(double *a, int n, int rank, int size) {
  double s = local(a, n), t = 0;
  for (int k = 0; k < n; k++) a[k] *= 0.5;
  if (size > 1) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv_replace(a, n / 4, MPI_DOUBLE, right, 0, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}
