/* text.c -- comments and strings containing braces and semicolons, #ifdef inside a function with
 * an inactive branch, multi-line macro invocations (perfeq instrumenter test corpus). */
#include <stdio.h>

#define SQUARE(x) ((x) * (x))
#define CLAMP(v, lo, hi) \
    ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))
#define FOR_EACH(i, n) for ((i) = 0; (i) < (n); (i)++)

static int tricky(int n)
{
    int i, s = 0; /* a comment with { braces; and semicolons } */
    const char *text = "if (x) { y; } else { z; }";
    char open = '{', close = '}', semi = ';';
    // a line comment: for (;;) { while (1); }
    for (i = 0; i < n; i++) {
#ifdef NEVER_DEFINED_IN_THIS_BUILD
        s -= 1000;
        if (s) {
#else
        s += CLAMP(SQUARE(i),
                   2,
                   50);
        if (s > 0) {
#endif
            s += text[i % 5] == '{';
        }
    }
#if 0
    for (;;) { s = -1; }
#endif
    FOR_EACH(i, 3) s++;
    return s + open + close + semi;
}

int main(void)
{
    printf("tricky %d \"{;}\" %s\n", tricky(10), "/* not a comment */ }");
    return 0;
}
