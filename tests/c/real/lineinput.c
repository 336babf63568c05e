/* The size read as a line of an input file, fgets() then atoi(line), into a struct field through
 * a helper (pogmat/ljmd's input.c:55, `sys->natoms = atoi(line);` after get_a_line(infile, line)):
 * no parameter was found ("give --param"), the model +75 % off on its own runs.  The mass on the
 * next line, read the same way, is no parameter (no count depends on it).
 * Usage: lineinput FILE   (FILE: the atom count, then the mass, one per line) */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int natoms;
    double mass;
    double *x;
} sys_t;

static int get_a_line(FILE *fp, char *buf)
{
    return fgets(buf, 64, fp) ? 0 : 1;
}

static int initialise(sys_t *sys, FILE *in)
{
    char line[64];
    if (get_a_line(in, line))
        return 1;
    sys->natoms = atoi(line);
    if (get_a_line(in, line))
        return 1;
    sys->mass = atof(line);
    sys->x = malloc(sys->natoms * sizeof(double));
    for (int i = 0; i < sys->natoms; i++)
        sys->x[i] = i * 0.5;
    return 0;
}

int main(int argc, char **argv)
{
    sys_t s;
    double e = 0;
    FILE *in = argc > 1 ? fopen(argv[1], "r") : NULL;
    if (in == NULL || initialise(&s, in))
        return 1;
    fclose(in);
    for (int it = 0; it < 10; it++) {
        for (int i = 0; i < s.natoms; i++)
            for (int j = i + 1; j < s.natoms; j++)
                e += s.mass * s.x[i] * s.x[j];
        for (int i = 0; i < s.natoms; i++)
            s.x[i] = i * 0.5 + e * 1e-30;
    }
    printf("%g\n", e);
    free(s.x);
    return 0;
}
