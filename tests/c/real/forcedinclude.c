/* forcedinclude: a file with no #include lines, built with -include stdio.h -include stdlib.h
 * (sarathr295/Parallel-Assignment, Q1.c: mpicc -include stdio.h -include stdlib.h -include mpi.h).
 * perfeq's analysis put its own prelude after the user's -include, so stdarg.h's __builtin_va_list
 * came before the typedef that stands in for it: "Missing type in declaration", exit 2.
 * Usage: forcedinclude N */
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double *a = malloc(n * sizeof(double)), s = 0;
    for (int i = 0; i < n; i++)
        a[i] = i * 0.5;
    for (int i = 0; i < n; i++)
        s += a[i];
    printf("%g\n", s);
    free(a);
    return 0;
}
