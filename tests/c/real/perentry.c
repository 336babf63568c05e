/* A loop with a constant trip count after a data-dependent `continue` (CoMD's pair loop:
   `if (jId <= iId) continue; for (m = 0; m < 3; m++) ...`): how often it is entered is data, and
   its true ratio changes with n, and the loop around it runs a number of times read from an array
   (len[i], fitted, not exact), but each entry runs 3 iterations.  The
   loop is symbolic (3 per entry); only its entries come from data, modelled where they are.  It
   was fitted ("its symbolic trip count does not reproduce the measured iterations", or "times
   0.997826" from the largest run) and, as a loop whose trip count is data, charged a mispredicted
   exit per entry.
   Usage: perentry N (N >= 7) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int *key = malloc(n * sizeof(int)), *len = malloc(n * sizeof(int));
    double (*x)[3] = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++) {
        key[i] = (i * 5) % n;
        len[i] = 2 + (i % 3 == 0);  /* atoms per box: data */
        for (int m = 0; m < 3; m++)
            x[i][m] = i + 0.25 * m;
    }
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        int count = len[i];
        for (int a = 0; a < count; a++)           /* atoms of box i */
            for (int j = 0; j < count; j++) {     /* ... against the same box's */
                if (key[j] > key[a])
                    continue;
                double r2 = 0.0;
                for (int m = 0; m < 3; m++) {
                    double d = x[a][m] - x[j][m];
                    r2 += d * d;
                }
                e += r2;
            }
    }
    printf("%.6g\n", e);
    free(key);
    free(len);
    free(x);
    return 0;
}
