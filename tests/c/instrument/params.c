/* params.c -- problem-size parameters from argv (atoi, strtol, sscanf), a data-dependent loop
 * and a loop whose variable is modified in the body (perfeq instrumenter test corpus). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = 10, steps, m = 0, i, t, found = 0;
    long width;
    int data[64];
    n = atoi(argc > 1 ? argv[1] : "10");
    steps = argc > 2 ? atoi(argv[2]) : 3;
    width = strtol(argc > 3 ? argv[3] : "4", NULL, 10);
    if (argc > 4)
        sscanf(argv[4], "%d", &m);
    for (i = 0; i < 64; i++)
        data[i] = (i * 7) % 64;
    for (t = 0; t < steps; t++)
        for (i = 0; i < n; i += width)
            m += i;
    i = 0;
    while (data[i] != 63)
        i++;
    for (t = 0; t < n; t++)
        if (data[t] == 0)
            t += 2;
    found = i;
    printf("n %d steps %d width %ld m %d found %d t %d\n", n, steps, width, m, found, t);
    return 0;
}
