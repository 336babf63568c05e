/* A for loop whose header a macro writes (Parboil lbm's SWEEP_START(...) ... SWEEP_END around its
 * five grid sweeps): perfeq cc cannot find it in the source and does not instrument it, so its body
 * counts once per pass; the model and the traces agreed on 13 operations for 100,000 iterations,
 * and only perfeq cc's warning said anything.  Now the model's fallbacks say it too.
 * Usage: macroloop N */
#include <stdio.h>
#include <stdlib.h>
#define SWEEP_START(n) for (i = 0; i < (n); i++)
#define SWEEP_END }
int main(int argc, char **argv)
{
  int n = atoi(argv[1]), i;
  double *a = calloc(n, sizeof *a), s = 0;
  SWEEP_START(n) {
    a[i] = 0.5 * i + 1.0;
    s += a[i] * a[i];
  SWEEP_END
  printf("%g\n", s);
  return 0;
}
