/* Loops whose header a macro writes (Parboil lbm's SWEEP_START(...) { ... SWEEP_END around its five
 * grid sweeps, the opening brace in the macro too): their bodies' statements are in the source, so
 * perfeq cc counts their entries before the macro's invocation and their iterations before the
 * body's first statement, with the header the preprocessor wrote (they were not instrumented: the
 * body counted once per pass, 13 operations for 100,000 iterations).  A loop a macro writes whole
 * (SUM_ALL) cannot be counted: the model's fallbacks name it as NOT COUNTED.
 * Usage: macroloop N */
#include <stdio.h>
#include <stdlib.h>
#define SWEEP_START(n) for (i = 0; i < (n); i++)
#define SWEEP_END }
#define GRID_START(lo, hi) for (i = (lo); i < (hi); i += 2) {
#define GRID_END }
#define SUM_ALL(n) for (i = 0; i < (n); i++) s += 1.0;
int main(int argc, char **argv)
{
  int n = atoi(argv[1]), i;
  double *a = calloc(n, sizeof *a), s = 0;
  SWEEP_START(n) {
    a[i] = 0.5 * i + 1.0;
    s += a[i] * a[i];
  SWEEP_END
  GRID_START(1, n)
    for (int k = 0; k < 3; k++)
      s += a[i] * k;
    if (a[i] > 100.0)
      break;
  GRID_END
  SUM_ALL(n)
  printf("%g\n", s);
  return 0;
}
