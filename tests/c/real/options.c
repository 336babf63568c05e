/* Options parsed by an if / else-if chain without braces (miniAMR, RSBench, XSBench): the
 * parameter recordings must stay inside the branches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { int n, m; } In;
int main(int argc, char **argv) {
  int nx = 10, ny = 5; In in = {1, 2};
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--nx")) nx = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ny")) ny = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--in")) in.n = atoi(argv[++i]);
    else return 2;
  long c = 0;
  for (int i = 0; i < nx; i++) for (int j = 0; j < ny; j++) c += in.n;
  printf("%ld\n", c); return 0; }
