/* perfeq model: a data-dependent trip count fitted to 0 when the run has an unrelated whole-number
 * parameter of 11..30 (here `opt`, constant across runs): the 8^opt form gets the constant
 * nsimplify(c, tolerance=1e-9) = 0, and 0, "an integer", wins the tie-break.  Rodinia nn (args 30 90). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int opt = atoi(argv[1]);               /* 30 in every run; no count depends on it */
    char buf[100];
    int n;
    double s = 0;
    while ((n = fread(buf, 10, 10, stdin)) > 0)   /* records per read: data */
        for (int i = 0; i < n; i++)
            s += buf[i * 10] + opt;
    printf("%g\n", s);
    return 0;
}
