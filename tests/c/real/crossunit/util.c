/* Straight-line helpers in a file of their own (index arithmetic, a random number generator):
 * the instrumenter gives them no hooks; the files that call them cannot know that. */
#include "util.h"

long idx(long i, long j, long n) { return i * n + j; }

double scale(double x) { return 2.5 * x + 1.0; }

double lcg(unsigned long *seed)
{
    *seed = 6364136223846793005UL * *seed + 1442695040888963407UL;
    return (double)(*seed >> 11) / 9007199254740992.0;
}
