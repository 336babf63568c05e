/* A loop bound that is data and grows with n, where no form fits two sizes within 5 % (issue 19):
 * a buffer's fill level, n / 2 plus a fixed header of 40 entries, read back from the buffer.  From
 * runs at n = 40 and 320 the first run's constant (60 trips) was the model's: -95 % at n = 2560.
 * Run: growth n */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    int *fill = calloc(4, sizeof(int));
    double s = 0.0;
    fill[0] = 40;
    for (int i = 0; i < n; i += 2)
        if (fill[1] == 0) /* data: an unconditional fill[0]++ is counted (40 + n / 2) since session 27 */
            fill[0]++;
    for (int rep = 0; rep < 100; rep++)
        for (int i = 0; i < fill[0]; i++)
            s += (i % 7) * 0.5;
    printf("%.1f\n", s);
    free(fill);
    return 0;
}
