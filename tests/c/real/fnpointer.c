/* A kernel called through a function pointer in a struct (sim->pot->force(sim), as CoMD selects
 * its potential): the call was not announced, the callee ran "from an unknown call site", and its
 * counts were the first run's.  Announced without a name, the kernel's loops scale with n. */
#include <stdio.h>
#include <stdlib.h>

typedef struct Sim Sim;
typedef struct {
    double (*force)(Sim *);
} Potential;
struct Sim {
    int n;
    double *x;
    Potential *pot;
};

static double lennard_jones(Sim *s)
{
    double e = 0.0;
    for (int i = 0; i < s->n; i++)
        for (int j = 0; j < 4; j++)
            e += s->x[i] * j;
    return e;
}

int main(int argc, char **argv)
{
    Potential lj = {lennard_jones};
    Sim sim;
    sim.n = argc > 1 ? atoi(argv[1]) : 10;
    sim.x = calloc(sim.n, sizeof *sim.x);
    sim.pot = &lj;
    double e = 0.0;
    for (int step = 0; step < 3; step++)
        e += sim.pot->force(&sim);
    printf("%g\n", e);
    free(sim.x);
    return 0;
}
