/* Struct member reads the loop does not change are read once, before the loop (loop-invariant
   code motion at -O2, allowed by C's type-based aliasing: a store of a double cannot change a
   pointer or an int).  CoMD's pair loop reads s->atoms->r[j][m], s->atoms->gid[j] and
   s->boxes->nLocalBoxes: one load, one load and none per iteration in the compiled code, where
   counting every `->` gave three, three and two, and priced the loop 2-3x too high.
   What keeps a read in the loop: a call (it may write anything), a store of the member's kind
   (a pointer for a pointer, a double for a double), an int or char store (may alias anything),
   a store to a member of that name, an assignment to the pointer it starts from.
   Usage: hoisted N (N a multiple of 4) */
#include <stdio.h>
#include <stdlib.h>

typedef double real3[3];
struct atoms { int n; double *u; real3 *r; int *gid; double scale; };
struct sim { struct atoms *atoms; int nlocal; double *out; };

static void touch(double *x) { x[0] += 1.0; }

static double pairs(struct sim *s, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < s->atoms->n; j++) {                   /* test: 0 loads */
            if (j < s->nlocal && s->atoms->gid[j] == s->atoms->gid[i]) /* 2 loads */
                continue;
            double r2 = 0.0;
            for (int m = 0; m < 3; m++) {
                double d = s->atoms->r[i][m] - s->atoms->r[j][m]; /* 2 loads */
                r2 += d * d;
            }
            s->atoms->u[i] += 0.5 * r2 * s->atoms->scale;         /* u[i] 1, scale 1 (double stores) */
            e += r2;
        }
    }
    return e;
}

static void blocked(struct sim *s, int n, double **rows, int *flags)
{
    for (int i = 0; i < n; i++) {
        s->out[i] = s->atoms->u[i];           /* a pointer stored below: out, atoms, u, u[i] */
        s->out = s->out;                      /* ... and out again: 5 loads in all */
    }
    for (int i = 0; i < n; i++)
        rows[i] = s->atoms->u + i;            /* pointer stores: s->atoms, ->u loaded: 2 loads */
    for (int i = 0; i < n; i++)
        flags[i] = s->nlocal + s->atoms->n;   /* int stores may alias anything: 3 loads */
    for (int i = 0; i < n; i++)
        touch(&s->atoms->u[i]);               /* a call: atoms, u, and touch's x[0]: 3 */
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    struct atoms a;
    struct sim s;
    a.n = n;
    a.scale = 0.25;
    a.u = calloc(n, sizeof(double));
    a.r = malloc(n * sizeof(real3));
    a.gid = malloc(n * sizeof(int));
    s.atoms = &a;
    s.nlocal = n / 2;
    s.out = calloc(n, sizeof(double));
    double **rows = malloc(n * sizeof(double *));
    int *flags = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        a.gid[i] = i % 2;  /* same parity: a true ratio of 1/4 with j < n / 2, at every n = 4k */
        for (int m = 0; m < 3; m++)
            a.r[i][m] = i * 0.5 + m;
    }
    double e = pairs(&s, n);
    blocked(&s, n, rows, flags);
    printf("energy %.6g u0 %.6g out %.6g flag %d\n", e, a.u[0], s.out[n - 1], flags[0]);
    free(rows); free(flags); free(a.u); free(a.r); free(a.gid); free(s.out);
    return 0;
}
