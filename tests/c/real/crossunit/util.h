#ifndef UTIL_H
#define UTIL_H
long idx(long i, long j, long n);
double scale(double x);
double lcg(unsigned long *seed);
#endif
