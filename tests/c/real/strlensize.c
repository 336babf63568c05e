/* Sizes that are the lengths of the strings on the command line (parallel-etudes' omp-levenshtein:
 * levenshtein(argv[1], argv[2]) with n = strlen(s), m = strlen(t) inside): no parameter was found,
 * and every loop kept the first run's trips (-98.4 % at 8x).  Usage: strlensize S T */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int distance(const char *s, const char *t)
{
    const int n = strlen(s), m = strlen(t);
    int *row = malloc((m + 1) * sizeof(int)), i, j;
    for (j = 0; j <= m; j++)
        row[j] = j;
    for (i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = i;
        for (j = 1; j <= m; j++) {
            int up = row[j], cost = s[i - 1] != t[j - 1];
            int best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    int d = row[m];
    free(row);
    return d;
}

int main(int argc, char *argv[])
{
    if (argc != 3) {
        fprintf(stderr, "Usage: %s str1 str2\n", argv[0]);
        return EXIT_FAILURE;
    }
    printf("%d\n", distance(argv[1], argv[2]));
    return EXIT_SUCCESS;
}
