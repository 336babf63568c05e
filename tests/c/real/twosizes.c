/* Two sizes from the command line (PolyBench's NI, NJ): traces where they are always equal cannot
 * tell them apart, and perfeq model says so. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += 0.5 * (i + j);
    printf("%.1f\n", s);
    return 0;
}
