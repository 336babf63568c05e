/* A multigrid level count (HPGMG's num_levels): one level more for each 8x the boxes, found by a
 * loop (data to perfeq), and loops over the levels.  From two sizes (1 and 8 boxes: 4 and 5
 * levels) the fit is 4 + log2(boxes) / 3 levels, a level count, exact at 64 boxes. */
#include <stdio.h>
#include <stdlib.h>

struct mg { int num_levels; double norm[32]; };

static void build(struct mg *g, int boxes)
{
    g->num_levels = 4;
    while (boxes > 1) {
        boxes /= 8;
        g->num_levels++;
    }
}

int main(int argc, char **argv)
{
    struct mg g;
    int boxes = atoi(argv[1]);
    double s = 0.0;
    build(&g, boxes);
    for (int cycle = 0; cycle < 10; cycle++)
        for (int level = 0; level < g.num_levels; level++) {
            g.norm[level] = 1.0 / (level + cycle + 1);
            s += g.norm[level];
        }
    printf("%.6f %d\n", s, g.num_levels);
    return 0;
}
