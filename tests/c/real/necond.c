/* A row printed with a separator after every value but the last (LLNL mpi_heat2D's prtdat:
 * `if (ix != nx - 1) fprintf(fp, " "); else fprintf(fp, "\n");`): the != on the loop's variable
 * was not summed (the first run's ratio kept: +100 % in the else branch at 8x); it is now
 * nx - 1 and 1 per row.  Usage: necond N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 20, ny = 4;
    float *u = calloc((size_t)nx * ny, sizeof *u);
    double edge = 0;
    for (int iy = ny - 1; iy >= 0; iy--)
        for (int ix = 0; ix <= nx - 1; ix++) {
            u[ix * ny + iy] += ix * 0.5f;
            if (ix != nx - 1)
                u[ix * ny + iy] *= 0.5f;
            else
                for (int k = 0; k < 50; k++)
                    edge += u[ix * ny + iy] + k;
        }
    printf("%g %g\n", edge, u[nx * ny - 1]);
    free(u);
    return 0;
}
