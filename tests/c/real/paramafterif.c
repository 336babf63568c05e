/* The size read from the file's first line (into `input`, then `size`) was recorded as parameter
 * `input` after the fscanf, and again after the enclosing if/else, where `input` holds the LAST
 * value read (a key): the model took that key as its size parameter (Rodinia b+tree main.c:1985). */
#include <stdio.h>

long size;

int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "r");
    int input;
    double s = 0;
    if (f != NULL) {
        fscanf(f, "%d\n", &input);
        size = input;
        while (!feof(f)) {
            fscanf(f, "%d\n", &input);
            s += input * 0.5;
        }
        fclose(f);
    } else {
        return 1;
    }
    printf("%ld %g\n", size, s);
    return 0;
}
