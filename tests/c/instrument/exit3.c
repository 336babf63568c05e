/* exit3.c -- a program that prints and exits with status 3 through exit() from a helper
 * (perfeq instrumenter test corpus). */
#include <stdio.h>
#include <stdlib.h>

static void fail(int code)
{
    printf("failing with %d\n", code);
    fflush(stdout);
    exit(code);
}

int main(void)
{
    int i;
    for (i = 0; i < 10; i++)
        if (i == 4)
            fail(3);
    return 0;
}
