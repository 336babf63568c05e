/* Loop forms the branch-predictor hook must leave alone: an endless while (1) left by return (the
 * compiler must still see that the end of the function is not reached) and an OpenMP loop whose
 * construct perfeq does not list (its condition must stay canonical).  Prints 3 and 4950. */
#include <stdio.h>

struct span {
    int n;
};

static int first_negative(const int *a)
{
    int i = 0;
    while (1) {
        if (a[i] < 0)
            return i;
        i++;
    }
}

int main(void)
{
    int a[6] = {4, 2, 7, -1, 3, -5};
    struct span s = {100};
    long total = 0;
    int i;
#pragma omp teams distribute reduction(+ : total)
    for (i = 0; i < s.n; i++)
        total += i;
    printf("%d %ld\n", first_negative(a), total);
    return 0;
}
