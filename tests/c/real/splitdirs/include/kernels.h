/* Found through -I../include on the compile line: a folder beside the program's, not its own. */
#ifndef KERNELS_H
#define KERNELS_H
double sweep(const double *x, int n);
#endif
