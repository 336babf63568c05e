/* Line splices (a backslash at the end of a line) where real code has them: a string literal
 * continued on the next line (Rodinia kmeans' getopt.c, in a file with CRLF line endings: perfeq
 * stopped with "cannot read character '\"'"), an expression, a // comment continued by one, a
 * directive.  The loops after them must keep their own line numbers. */
#include <stdio.h>
#include <stdlib.h>

#define SUM3(a, b, c) \
    ((a) + \
     (b) + (c))

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    double s = 0; // a comment continued by a splice \
    s = 100;
    long t = n + \
             SUM3(1, 2, 3);
    for (int i = 0; i < n; i++)
        s += i;
    printf("usage: \
%s n\n", argv[0]);
    for (int j = 0; j < 2 * n; j++)
        t += j % 3;
    printf("%g %ld %c\n", s, t, '\
x');
    return 0;
}
