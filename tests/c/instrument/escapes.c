/* Unknown escape sequences, which gcc accepts with a warning (CoSP2's matrixio.c writes
 * "\%\%MatrixMarket ..."): in strings, in a character constant, beside known ones and an escaped
 * backslash; perfeq stopped with "Illegal character". The loop after them on the same line is
 * instrumented at its place.  Prints the header and 10. */
#include <stdio.h>

int main(void)
{
    char c = '\%'; const char *path = "a\\%b"; int s = 0; for (int i = 0; i < 4; i++) s += i;
    printf("\%\%MatrixMarket matrix coordinate real general %c %s \(x\)\n", c, path);
    printf("%d\n", s);
    return 0;
}
