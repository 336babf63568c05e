/* includeup: the driver (main, the size from argv, the graph's generation), a .c file that
 * app/bfs.c #includes from this sibling folder. */
#include <stdio.h>
#include <stdlib.h>

typedef struct { unsigned long nv; unsigned long *offsets; } csrdata;
unsigned long traverse(csrdata *g);   /* defined by the file that includes this one */

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 10;
    csrdata g;
    g.nv = 1UL << scale;
    g.offsets = malloc((g.nv + 1) * sizeof(unsigned long));
    g.offsets[0] = 0;
    for (unsigned long i = 0; i < g.nv; i++)
        g.offsets[i + 1] = g.offsets[i] + 4;
    printf("scale %d edges %lu visited %lu\n", scale, g.offsets[g.nv], traverse(&g));
    free(g.offsets);
    return 0;
}
