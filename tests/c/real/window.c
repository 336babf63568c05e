/* Loops over a window around data (CoMD's getNeighborBoxes: for (i = ix - 1; i <= ix + 1; i++)
 * with ix set through a pointer by getTuple): their trip counts do not depend on the data, 3 per
 * entry, and are symbolic; a loop whose body uses the window's variable is counted too.
 * Usage: window N */
#include <stdio.h>
#include <stdlib.h>

static void tuple_of(int box, int n, int *ixp, int *iyp)
{
    int ix, iy;
    if (box < n * n) { /* as CoMD's getTuple: a local box, else a halo box */
        ix = box % n;
        box /= n;
        iy = box;
    } else {
        ix = -1;
        iy = -1;
        for (int h = n * n; h < box; h++)
            ix--;
    }
    *ixp = ix;
    *iyp = iy;
}

static int neighbours(int box, int n, int *out)
{
    int ix, iy, count = 0;
    tuple_of(box, n, &ix, &iy);
    for (int i = ix - 1; i <= ix + 1; i++)
        for (int j = iy - 1; j <= iy + 1; j++)
            out[count++] = ((i + n) % n) + n * ((j + n) % n);
    return count;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    int *start = malloc((n * n + 1) * sizeof *start), out[9];
    long sum = 0;
    for (int b = 0; b < n * n; b++)
        start[b] = rand() % 13;
    for (int b = 0; b < n * n; b++) {
        int c = neighbours(b, n, out);
        for (int k = 0; k < c; k++)
            sum += out[k];
        for (int w = start[b]; w < start[b] + 4; w++) /* a window of 4 at a data offset */
            sum += w;
    }
    printf("%ld\n", sum);
    free(start);
    return 0;
}
