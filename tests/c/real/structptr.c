/* Options in a malloc'ed struct reached under different names (SimpleMOC-kernel): a helper sets
 * input->segments from argv, the kernel bounds its loop by I->segments of the caller's pointer I.
 * argv: -s segments */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { long segments; int egroups; } Input;
static Input *set_default_input(void)
{
    Input *I = malloc(sizeof *I);
    I->segments = 1000;
    I->egroups = 16;
    return I;
}
static void read_CLI(int argc, char **argv, Input *input)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
            input->segments = atol(argv[++i]);
}
static double run_kernel(Input *I)
{
    double s = 0;
    for (long i = 0; i < I->segments; i++)
        s += (double)i * 0.5;
    return s;
}
int main(int argc, char **argv)
{
    Input *I = set_default_input();
    read_CLI(argc, argv, I);
    printf("%g\n", run_kernel(I));
    free(I);
    return 0;
}
