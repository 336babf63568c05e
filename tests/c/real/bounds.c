/* Loop bounds real codes write: unary minus (a stencil's -R .. R, which was recorded as R .. R),
 * two variables in the step (i++, j--: i runs toward j), and a doubling loop.  Prints the number
 * of iterations, which the model must reproduce at other sizes. */
#include <stdio.h>
#include <stdlib.h>

#define R 3

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 9, r = 2;
    long c = 0;
    for (int i = 0; i < n; i++)
        for (int j = -R; j <= R; j++)
            c++;
    for (int i = 0; i < n; i++)
        for (int j = -r; j <= r; j++)
            c++;
    for (int i = 0; i < n; i++)
        for (int j = -(R + 1); j <= R; j++)
            c++;
    for (int i = 0, j = n - 1; i < j; i++, j--)
        c++;
    for (int i = 0, j = n; i <= j; i += 1, j -= 2)
        c++;
    for (int s = 1; s < n; s *= 2)
        c++;
    printf("%ld\n", c);
    return 0;
}
