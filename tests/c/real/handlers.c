/* Active messages delivered through a handler table (graph500's aml_send: handlers[type](...)), a
 * comparator passed as a parameter (cmp(a, b)) and a hook kept in a global pointer: calls through
 * an array element or a pointer variable were not announced, so the handlers ran "from an unknown
 * call site" and their counts were fitted per rank (graph500's validation -28.6 % at 8x).  Announced
 * without a name, each handler's calls are the caller's block count and its counts scale with n. */
#include <stdio.h>
#include <stdlib.h>

typedef void (*handler_t)(int from, const void *data, int size);
static handler_t handlers[4];
static void (*hook)(long);
static long visited, odd, hooked;

static void visit(int from, const void *data, int size)
{
    if (((const int *)data)[1] % 3 == 0)
        visited += from + size;
}

static void count_odd(int from, const void *data, int size)
{
    for (int k = 0; k < 2; k++)
        odd += ((const int *)data)[k] & 1;
    odd += from + size;
}

static void note(long v) { hooked += v + 1; }

/* delivered locally when the destination is this process, as aml_send does */
static void send(const void *msg, int type, int size, int node, int me)
{
    if (node == me) {
        handlers[type](me, msg, size);
        return;
    }
    hook(size);
}

static int larger(int a, int b) { return a > b; }

static int count_if(const int *v, int n, int (*cmp)(int, int), int pivot)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        if (cmp(v[i], pivot))
            c++;
    return c;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    int *v = malloc(n * sizeof *v);
    handlers[1] = visit;
    handlers[2] = count_odd;
    hook = note;
    for (int i = 0; i < n; i++) {
        v[i] = i;
        int msg[2] = {v[i], i};
        send(msg, 1, sizeof msg, i % 4 == 0 ? 1 : 0, 0);
        send(msg, 2, sizeof msg, 0, 0);
    }
    printf("%ld %ld %ld %d\n", visited, odd, hooked, count_if(v, n, larger, -1));
    free(v);
    return 0;
}
