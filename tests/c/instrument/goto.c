/* goto.c -- labels and goto: perfeq warns but the program still compiles and behaves
 * (perfeq instrumenter test corpus). */
#include <stdio.h>

int main(void)
{
    int i = 0, j, hits = 0;
again:
    i++;
    if (i < 5)
        goto again;
    for (j = 0; j < 10; j++) {
        if (j == 7)
            goto done;
        hits += j;
    }
done:
    printf("i %d hits %d\n", i, hits);
    return 0;
}
