/* recursion.c -- direct and mutual recursion (a warning) and calls through function pointers
 * (perfeq instrumenter test corpus). */
#include <stdio.h>

static long fact(int n)
{
    return n <= 1 ? 1 : n * fact(n - 1);
}

static int is_odd(int n);

static int is_even(int n)
{
    if (n == 0)
        return 1;
    return is_odd(n - 1);
}

static int is_odd(int n)
{
    if (n == 0)
        return 0;
    return is_even(n - 1);
}

static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }

static int apply(int (*f)(int), int x)
{
    return f(x);
}

int main(void)
{
    int (*ops[2])(int) = {twice, square};
    int i, acc = 0;
    for (i = 0; i < 6; i++)
        acc += ops[i % 2](i) + apply(ops[(i + 1) % 2], i);
    printf("fact %ld even %d odd %d acc %d\n", fact(10), is_even(10), is_odd(7), acc);
    return 0;
}
