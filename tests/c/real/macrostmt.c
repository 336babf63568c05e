/* A statement macro that expands to a { } block, written without ';' as the then-branch of an if
 * that is the last statement of a block, and before an else (Rodinia leukocyte's avilib.c,
 * ERR_EXIT): gcc compiles it; perfeq stopped with "unexpected '}'". */
#include <stdio.h>
#include <stdlib.h>
#define ERR_EXIT(x) { err = x; return 0; }
int err;
int f(int n)
{
    if (n > 0) {
        if (n > 5) ERR_EXIT(1)
    }
    if (n > 3) ERR_EXIT(2) else n++;
    return n;
}
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), s = 0;
    for (int i = 0; i < n; i++)
        s += f(i % 8);
    printf("%d %d\n", s, err);
    return 0;
}
