/* Rodinia hotspot's chunk loop (found by session 36's helper): chunks of 16 x 16 cells, a border
 * test on each chunk's extent, then eight chained corner and edge ifs per cell, in a parallel loop
 * over the chunks inside a time-step loop.  `perfeq model` of three traces did not end (hotspot
 * itself: killed after 30 minutes): sympy built a Poly of a summand that did not hold the
 * summation variable (a nested fraction of the sizes, from a ratio fitted under the border test),
 * and expanded such fractions in the model's counts; folding the chained ifs into one ?: took
 * seconds per sum.  Now: seconds, within 0.1 % at 8x.
 * usage: chunks rows cols steps threads */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define B 16
int nthreads;
void step(float *res, const float *t, int row, int col) {
  int num_chunk = row * col / (B * B), cir = col / B, cic = row / B, chunk, r, c;
  omp_set_num_threads(nthreads);
#pragma omp parallel for private(r, c) firstprivate(row, col, num_chunk, cir) schedule(static)
  for (chunk = 0; chunk < num_chunk; ++chunk) {
    int r_start = B * (chunk / cic), c_start = B * (chunk % cir);
    int r_end = r_start + B > row ? row : r_start + B;
    int c_end = c_start + B > col ? col : c_start + B;
    if (r_start == 0 || c_start == 0 || r_end == row || c_end == col) {
      for (r = r_start; r < r_start + B; ++r)
        for (c = c_start; c < c_start + B; ++c) {
          if (r == 0 && c == 0) res[0] = t[0];
          else if (r == 0 && c == col - 1) res[c] = t[c];
          else if (r == row - 1 && c == col - 1) res[r*col+c] = t[r*col+c];
          else if (r == row - 1 && c == 0) res[r*col] = t[r*col];
          else if (r == 0) res[c] = 0.5f * t[c];
          else if (c == col - 1) res[r*col+c] = 0.5f * t[r*col+c];
          else if (r == row - 1) res[r*col+c] = 0.25f * t[r*col+c];
          else if (c == 0) res[r*col] = 0.25f * t[r*col];
          else res[r*col+c] = t[r*col+c];
        }
    } else {
      for (r = r_start; r < r_start + B; ++r)
        for (c = c_start; c < c_start + B; ++c) res[r*col+c] = 0.9f * t[r*col+c];
    }
  }
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]), steps = atoi(argv[3]); nthreads = atoi(argv[4]);
  float *a = calloc(n * m, sizeof(float)), *b = calloc(n * m, sizeof(float)), *x;
  for (int i = 0; i < n * m; i++) a[i] = i % 7;
  for (int s = 0; s < steps; s++) { step(b, a, n, m); x = a; a = b; b = x; }
  printf("%g\n", a[n*m-1]);
  return 0;
}
