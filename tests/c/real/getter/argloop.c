/* A getter called in the loop over the command line (UoB-HPC miniBUDE's loadParameters:
   `if (++i >= argc || (nposes = parseInt(argv[i])) < 0)`, parseInt returning `strlen(next) ? -1 :
   value` with `int value = strtoul(str, &next, 10);`).  Before, nposes was no parameter: every loop
   over the poses fitted to the global params.nposes set in two places, or constant without
   --param (-93.75 % at 8x).  Usage: argloop -n N [-i ITERS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int iterations, nposes;
} params;

static int parse_int(const char *str)
{
    char *next;
    int value = strtoul(str, &next, 10);
    return strlen(next) ? -1 : value;
}

static void load(int argc, char **argv)
{
    int nposes = 64;
    params.iterations = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-i")) {
            if (++i >= argc || (params.iterations = parse_int(argv[i])) < 0)
                exit(1);
        } else if (!strcmp(argv[i], "-n")) {
            if (++i >= argc || (nposes = parse_int(argv[i])) < 0)
                exit(1);
        }
    }
    params.nposes = nposes;
}

int main(int argc, char **argv)
{
    load(argc, argv);
    float *energy = calloc((size_t)params.nposes, sizeof(float));
    for (int it = 0; it < params.iterations; it++)
        for (int p = 0; p < params.nposes; p++)
            energy[p] += 0.5f * (float)(p % 7) + (float)it;
    double sum = 0;
    for (int p = 0; p < params.nposes; p++)
        sum += energy[p];
    printf("%d poses: %g\n", params.nposes, sum);
    free(energy);
    return 0;
}
