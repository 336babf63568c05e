/* includeup: the program's driver is a .c file of a sibling folder that this file #includes
 * (lightsaber91/Progetto-PSMC, OMP/ompBFS.c:1 `#include "../source/driverBFS.c"`).  perfeq
 * instrumented an included .c of the source's own folder only: this one, outside it, was taken for
 * a library's and left out without a word (no parameter, every loop a constant, -87.5 % at 8x).
 * Usage (from app/): bfs SCALE */
#include "../source/driver.c"

unsigned long traverse(csrdata *g)
{
    unsigned long visited = 0;
    #pragma omp parallel for reduction(+:visited)
    for (unsigned long u = 0; u < g->nv; u++)
        for (unsigned long j = g->offsets[u]; j < g->offsets[u + 1]; j++)
            visited += (j % 5 == 0);
    return visited;
}
