/* Loops bounded by enumeration constants (issue 19): CoMD's timers loop to the last enumerator
 * (for (i = 0; i < numberOfTimers; i++)), and enumerators with explicit values built from earlier
 * ones.  They were "bound not symbolic": each loop kept its trips per entry as a fit. */
#include <stdio.h>
#include <stdlib.h>

enum TimerHandle { totalTimer, loopTimer, forceTimer, commTimer, numberOfTimers };
typedef enum { LOG_WIDTH = 3, WIDTH = 1 << LOG_WIDTH, STENCIL = WIDTH + 2 * 1 } sizes_t;

static double timers[numberOfTimers];

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double s = 0.0;
    for (int step = 0; step < n; step++) {
        for (int t = 0; t < numberOfTimers; t++)
            timers[t] += 0.5 * step;
        for (int k = 0; k < STENCIL; k++)
            s += (double)k / (step + 1);
    }
    for (int t = totalTimer; t < numberOfTimers; t++)
        s += timers[t];
    printf("%.3f\n", s);
    return 0;
}
