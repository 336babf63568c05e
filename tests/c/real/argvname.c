/* The command line under other names (Parboil lbm: `int main(int nArgs, char *arg[])`, handed to
 * a parser `parse(nArgs, arg, &param)`): perfeq knew it by the spelling argv, so the size read from
 * it was no parameter and the time-step loop a constant (-92.5 % at 40 steps).
 * Usage: argvname STEPS */
#include <stdio.h>
#include <stdlib.h>
typedef struct { int nTimeSteps; char *name; } Param;
static void parse(int nArgs, char *arg[], Param *param) {
  if (nArgs < 2) { printf("usage\n"); exit(1); }
  param->nTimeSteps = atoi(arg[1]);
  param->name = NULL;
}
static void show(const Param *param) { printf("steps %d\n", param->nTimeSteps); }
static double a[1000];
static void step(void) { for (int i = 1; i < 999; i++) a[i] = 0.5 * (a[i - 1] + a[i + 1]); }
int main(int nArgs, char *arg[]) {
  Param param;
  int t;
  parse(nArgs, arg, &param);
  show(&param);
  for (t = 1; t <= param.nTimeSteps; t++) step();
  printf("%g\n", a[500]);
  return 0;
}
