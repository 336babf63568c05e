/* branches.c -- if/else-if chains without braces, switch with fallthrough, ternaries
 * (perfeq instrumenter test corpus). */
#include <stdio.h>

static const char *classify(int x)
{
    if (x < 0)
        return "negative";
    else if (x == 0)
        return "zero";
    else if (x < 10)
        return "small";
    else
        return "large";
}

static int days(int month)
{
    int d = 0;
    switch (month) {
    case 2:
        d = 28;
        break;
    case 4: case 6:
    case 9:
    case 11:
        d = 30;
        break;
    case 13:
        d += 1;
        /* fall through */
    case 14:
        d += 2;
    default:
        d += 31;
    }
    return d;
}

int main(void)
{
    int i, total = 0, odd = 0;
    for (i = -2; i < 15; i++) {
        printf("%d %s %d\n", i, classify(i), days(i));
        total += i > 5 ? i : (i < 0 ? -i : 0);
        odd += (i % 2) ? 1 : 0;
    }
    if (total > 100) total = 100; else total = -total;
    if (odd)
        if (total)
            printf("nested\n");
        else
            printf("dangling\n");
    printf("total %d odd %d\n", total, odd);
    return 0;
}
