/* Sizes kept in small integer arrays, filled the ways real codes fill them: a doubling recurrence
   from a first element set alone (len[0] = n), an ascending one by addition (offsets), a local
   array filled by a loop over its index, and a recurrence whose first element is read from the
   command line into an element (NPB MG reads its finest grid so).  The work loop runs to those
   values inside a loop over the levels.

   Usage: recurrences N LEVELS */
#include <stdio.h>
#include <stdlib.h>

#define MAXL 16

static int len[MAXL], off[MAXL], half[MAXL];

static long work(int n)
{
    long s = 0;
    int i;
    for (i = 0; i < n; i++)
        s += i ^ n;
    return s;
}

int main(int argc, char **argv)
{
    int ext[MAXL];
    int k, n, levels, top;
    long s = 0;

    if (argc < 3)
        return 1;
    n = atoi(argv[1]);
    levels = atoi(argv[2]);
    if (n < 1 || levels < 2 || levels > MAXL)
        return 1;
    top = levels - 1;
    sscanf(argv[1], "%d", &half[top]);

    len[0] = n;
    for (k = 1; k < levels; k++)
        len[k] = len[k - 1] * 2;
    off[0] = 3;
    for (k = 1; k < levels; k++)
        off[k] = off[k - 1] + 5;
    for (k = top - 1; k >= 0; k--)
        half[k] = half[k + 1] / 2;
    for (k = 0; k < levels; k++)
        ext[k] = len[k] + off[k];

    for (k = 0; k < levels; k++)
        s += work(ext[k]) + work(half[k]);
    printf("%ld\n", s);
    return 0;
}
