/*
 * sharks.c -- "sharks and fish" (Wa-Tor style) population dynamics on an n x n torus.
 *
 * What it computes
 *   Each cell is empty, holds a fish (with an age) or a shark (with an age and an energy).
 *   The world is advanced by a cellular-automaton rule: the new state of a cell is a function
 *   of the old states within distance 3 (Jacobi style), so the result does not depend on the
 *   number of processes or the order of the updates.  Pseudo-random choices come from a fixed
 *   integer hash of (global row, column, step), never from rand().
 *
 *   Per step, every creature looks for a neighbour cell, starting from a hashed direction and
 *   turning clockwise until it finds one (a data-dependent while loop, at most 4 tries):
 *     - a shark looks for a fish first; if it finds one it eats it (energy += SHARK_GAIN);
 *       otherwise, with energy 1 left it starves; otherwise it looks for an empty cell;
 *     - a fish looks for an empty cell.
 *   An empty cell wanted by several creatures goes to the first one in the order sharks
 *   before fish, then north, east, south, west; the losers stay.  A winner old enough to breed
 *   leaves a newborn there and stays (its age restarts); otherwise it moves.  A fish that is
 *   eaten neither moves nor breeds.  Ages grow by one per step; sharks lose one unit of energy
 *   per step.
 *
 * Parameters
 *   argv[1]  n      torus side (default 256; n >= 3 P)
 *   argv[2]  steps  generations (default 40)
 *
 * Data distribution
 *   Block rows: process r owns rows lo = r*n/P .. hi = (r+1)*n/P - 1, plus HALO = 3 halo rows
 *   on each side (periodic ring of processes).
 *
 * Communication (per step)
 *   two MPI_Sendrecv of 3 rows (3 * n * 3 ints) with the previous and the next process, and one
 *   MPI_Reduce of the fish and shark counts to rank 0.  At the end one MPI_Reduce of a state sum.
 *
 * Complexity
 *   computation  O(n^2 / P) per step with a data-dependent constant (irregular branches)
 *   messages     2 sendrecv of 9 n words + one reduce (log P) per step.
 *
 * Output (rank 0)
 *   checksum <sum over steps of (fish + 3 sharks) + sum over cells of (age + 2 energy)>
 *   (no verification: there is no known answer).  Exit 0, or 2 on bad arguments.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_N 256
#define DEFAULT_STEPS 40
#define HALO 3
#define FIELDS 3 /* kind, age, energy */

#define EMPTY 0
#define FISH 1
#define SHARK 2

#define FISH_BREED 4
#define SHARK_BREED 10
#define SHARK_START 6
#define SHARK_GAIN 4

/* Row and column offsets of the directions north, east, south, west. */
static const int drow[4] = {-1, 0, 1, 0};
static const int dcol[4] = {0, 1, 0, -1};

/* Fixed integer hash of three values. */
static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ (c + 0x165667B1u) * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}

static int parse_int(const char *text, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < 1 || v > 100000000L)
        return 0;
    *value = (int)v;
    return 1;
}

/* The world seen by one process: old state with halo rows, and where it lies in the torus. */
struct world {
    const int *g; /* (local_n + 2 HALO) rows x n columns x FIELDS, local row HALO = global lo */
    int n;
    int lo;
    int step;
};

static int cell(const struct world *w, int r, int c)
{
    c = (c + w->n) % w->n;
    return (r * w->n + c) * FIELDS;
}

static int kind_at(const struct world *w, int r, int c)
{
    return w->g[cell(w, r, c)];
}

/*
 * Direction of the first neighbour of kind `want`, starting from a hashed direction and
 * turning clockwise; -1 if no neighbour has that kind.
 */
static int find_neighbour(const struct world *w, int r, int c, int want)
{
    int grow = (w->lo + r - HALO + w->n) % w->n;
    int d = (int)(hash3((uint32_t)grow, (uint32_t)c, (uint32_t)w->step) % 4u);
    int tries = 0;
    while (tries < 4 && kind_at(w, r + drow[d], c + dcol[d]) != want) {
        d = (d + 1) % 4;
        tries++;
    }
    return tries < 4 ? d : -1;
}

/* Shark at (r, c): direction of the fish it eats, or -1. */
static int shark_prey(const struct world *w, int r, int c)
{
    return find_neighbour(w, r, c, FISH);
}

/*
 * The empty cell a creature at (r, c) wants to enter (as a direction), or -1:
 * sharks that eat or starve want none.
 */
static int wanted_cell(const struct world *w, int r, int c)
{
    int k = w->g[cell(w, r, c)];
    if (k == SHARK) {
        if (shark_prey(w, r, c) >= 0)
            return -1;
        if (w->g[cell(w, r, c) + 2] <= 1)
            return -1;
        return find_neighbour(w, r, c, EMPTY);
    }
    if (k == FISH)
        return find_neighbour(w, r, c, EMPTY);
    return -1;
}

/* Is the fish at (r, c) eaten by one of its neighbouring sharks? */
static int eaten(const struct world *w, int r, int c)
{
    int d;
    for (d = 0; d < 4; d++) {
        int nr = r + drow[d], nc = c + dcol[d];
        if (kind_at(w, nr, nc) == SHARK) {
            int prey = shark_prey(w, nr, nc);
            if (prey >= 0 && prey == (d + 2) % 4)
                return 1;
        }
    }
    return 0;
}

/* Which neighbour (as a direction from the empty cell) gets the empty cell (r, c); -1: none. */
static int claimant(const struct world *w, int r, int c)
{
    int d, pass;
    for (pass = 0; pass < 2; pass++) {
        int k = pass == 0 ? SHARK : FISH;
        for (d = 0; d < 4; d++) {
            int nr = r + drow[d], nc = c + dcol[d];
            if (kind_at(w, nr, nc) == k && wanted_cell(w, nr, nc) == (d + 2) % 4)
                return d;
        }
    }
    return -1;
}

/* Does the creature at (r, c) win the empty cell it wants? */
static int wins(const struct world *w, int r, int c)
{
    int d = wanted_cell(w, r, c);
    if (d < 0)
        return 0;
    return claimant(w, r + drow[d], c + dcol[d]) == (d + 2) % 4;
}

/* New state of the cell (r, c), written to out[0..2]. */
static void update_cell(const struct world *w, int r, int c, int *out)
{
    const int *old = &w->g[cell(w, r, c)];
    int k = old[0], age = old[1], energy = old[2];
    out[0] = EMPTY;
    out[1] = 0;
    out[2] = 0;
    if (k == EMPTY) {
        int d = claimant(w, r, c);
        if (d >= 0) {
            const int *nb = &w->g[cell(w, r + drow[d], c + dcol[d])];
            if (nb[0] == SHARK) {
                out[0] = SHARK;
                if (nb[1] >= SHARK_BREED) {
                    out[1] = 0;
                    out[2] = SHARK_START;
                } else {
                    out[1] = nb[1] + 1;
                    out[2] = nb[2] - 1;
                }
            } else if (!eaten(w, r + drow[d], c + dcol[d])) {
                out[0] = FISH;
                out[1] = nb[1] >= FISH_BREED ? 0 : nb[1] + 1;
            }
        }
    } else if (k == FISH) {
        if (eaten(w, r, c))
            return;
        if (wins(w, r, c)) {
            if (age >= FISH_BREED) {
                out[0] = FISH;
                out[1] = 0;
            }
            return; /* moved away: the cell is left empty */
        }
        out[0] = FISH;
        out[1] = age + 1;
    } else {
        if (shark_prey(w, r, c) >= 0) {
            out[0] = SHARK;
            out[1] = age + 1;
            out[2] = energy - 1 + SHARK_GAIN;
            return;
        }
        if (energy <= 1)
            return; /* starved */
        if (wins(w, r, c)) {
            if (age >= SHARK_BREED) {
                out[0] = SHARK;
                out[1] = 0;
                out[2] = energy - 1;
            }
            return;
        }
        out[0] = SHARK;
        out[1] = age + 1;
        out[2] = energy - 1;
    }
}

/* Initial population of the owned rows from the hash of the global coordinates. */
static void populate(int *g, int lo, int local_n, int n)
{
    int r, c;
    for (r = 0; r < local_n; r++) {
        for (c = 0; c < n; c++) {
            uint32_t h = hash3((uint32_t)(lo + r), (uint32_t)c, 0xFFFFFFFFu);
            int *x = &g[((r + HALO) * n + c) * FIELDS];
            int roll = (int)(h % 100u);
            x[0] = EMPTY;
            x[1] = 0;
            x[2] = 0;
            if (roll < 35) {
                x[0] = FISH;
                x[1] = (int)((h >> 8) % FISH_BREED);
            } else if (roll < 43) {
                x[0] = SHARK;
                x[1] = (int)((h >> 8) % SHARK_BREED);
                x[2] = 1 + (int)((h >> 16) % SHARK_START);
            }
        }
    }
}

/* Fill the HALO rows on each side from the previous and the next process (periodic). */
static void exchange(int *g, int local_n, int n, int prev, int next)
{
    int rowlen = n * FIELDS;
    /* my first HALO owned rows go to prev; next's first rows arrive in my upper halo */
    MPI_Sendrecv(&g[HALO * rowlen], HALO * rowlen, MPI_INT, prev, 1,
                 &g[(HALO + local_n) * rowlen], HALO * rowlen, MPI_INT, next, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    /* my last HALO owned rows go to next; prev's last rows arrive in my lower halo */
    MPI_Sendrecv(&g[local_n * rowlen], HALO * rowlen, MPI_INT, next, 2, &g[0], HALO * rowlen,
                 MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* One generation: new owned rows from the old grid; counts of fish and sharks. */
static void generation(const int *old, int *new_grid, int lo, int local_n, int n, int step,
                       long long counts[2])
{
    struct world w;
    int r, c;
    w.g = old;
    w.n = n;
    w.lo = lo;
    w.step = step;
    counts[0] = 0;
    counts[1] = 0;
    for (r = HALO; r < HALO + local_n; r++) {
        for (c = 0; c < n; c++) {
            int *out = &new_grid[(r * n + c) * FIELDS];
            update_cell(&w, r, c, out);
            if (out[0] == FISH)
                counts[0]++;
            else if (out[0] == SHARK)
                counts[1]++;
        }
    }
}

static long long state_sum(const int *g, int local_n, int n)
{
    int r, c;
    long long sum = 0;
    for (r = HALO; r < HALO + local_n; r++) {
        for (c = 0; c < n; c++) {
            const int *x = &g[(r * n + c) * FIELDS];
            sum += x[1] + 2 * x[2];
        }
    }
    return sum;
}

int main(int argc, char **argv)
{
    int rank, size, n = DEFAULT_N, steps = DEFAULT_STEPS;
    int lo, hi, local_n, prev, next, step;
    size_t cells;
    int *old, *cur, *tmp;
    long long counts[2], totals[2] = {0, 0}, history = 0, mine, state = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 3 || (argc > 1 && !parse_int(argv[1], &n)) ||
        (argc > 2 && !parse_int(argv[2], &steps)) || n / size < HALO) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [n [steps]]   (n = torus side, n >= %d * processes, default %d; "
                    "steps default %d)\n",
                    argv[0], HALO, DEFAULT_N, DEFAULT_STEPS);
        MPI_Finalize();
        return 2;
    }

    lo = rank * n / size;
    hi = (rank + 1) * n / size;
    local_n = hi - lo;
    prev = (rank + size - 1) % size;
    next = (rank + 1) % size;

    cells = (size_t)(local_n + 2 * HALO) * n * FIELDS;
    old = calloc(cells, sizeof(int));
    cur = calloc(cells, sizeof(int));
    if (!old || !cur) {
        fprintf(stderr, "sharks: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    populate(old, lo, local_n, n);

    for (step = 0; step < steps; step++) {
        exchange(old, local_n, n, prev, next);
        generation(old, cur, lo, local_n, n, step, counts);
        MPI_Reduce(counts, totals, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        history += totals[0] + 3 * totals[1];
        tmp = old;
        old = cur;
        cur = tmp;
    }

    mine = state_sum(old, local_n, n);
    MPI_Reduce(&mine, &state, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.12e\n", (double)(history + state));

    free(old);
    free(cur);
    MPI_Finalize();
    return 0;
}
