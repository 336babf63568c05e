/* Sizes read from an input file into a struct field and a variable (fscanf): parameter
 * candidates like argv ones; the string it reads is not one. */
#include <stdio.h>
#include <stdlib.h>
typedef struct { int n; double tol; } Cfg;
int main(int argc, char **argv) {
  Cfg cfg; int steps; char name[32];
  FILE *f = fopen(argv[1], "r");
  if (!f || fscanf(f, "%d %d %31s", &cfg.n, &steps, name) != 3) return 1;
  fclose(f);
  long c = 0;
  for (int t = 0; t < steps; t++) for (int i = 0; i < cfg.n; i++) c += i;
  printf("%s %ld\n", name, c); return 0; }
