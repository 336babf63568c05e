/* whiles.c -- while loops that step their variable in the body, and functions whose value is
 * returned after such loops (perfeq instrumenter test corpus).  Prints 6 6 3 4 4 1. */
#include <stdio.h>

static int ilog2(int n)
{
    int nn, lg;
    if (n == 1) {
        return 0;
    }
    lg = 1;
    nn = 2;
    while (nn < n) {
        nn = nn << 1;
        lg++;
    }
    return lg;
}

static int halvings(int n)
{
    int count = 0;
    while (n > 1) {
        count += 1;
        n /= 2;
    }
    return count;
}

static int conditional_step(int n)
{
    int i = 0, odd = 0;
    while (i < n) {
        if (n % 2)
            i += 2;
        else
            i += 1;
        odd++;
    }
    return odd;
}

static int skipping(int n)
{
    int i = 0, seen = 0;
    while (i < n) {
        i++;
        if (i % 3 == 0)
            continue;
        seen++;
    }
    return seen;
}

static int read_before_step(int n)
{
    int i = 0, sum = 0;
    while (i < n) {
        sum += i;
        i += 1;
        sum -= 1;
    }
    return sum > 0 ? 4 : 0;
}

static int early(int n)
{
    if (n < 0)
        return -1;
    if (n == 0) {
        return 0;
    }
    return 3;
}

static int find(int n)
{
    for (int i = 0; i < 2; i++)
        if (i == n)
            return 2;
    return 3;
}

int main(void)
{
    printf("%d %d %d %d %d %d\n", ilog2(64), halvings(64), conditional_step(5), skipping(6),
           read_before_step(4), early(7) + find(1) - 4);
    return 0;
}
