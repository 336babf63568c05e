/* perfeq_rt.c -- the perfeq runtime library: call-graph contexts, counters, values and the trace.
 *
 * Part of perfeq stage 2 (runtime/).  The API, the environment variables and the threading rules
 * are described in perfeq_rt.h; the trace format ("perfeq-trace" version 2) in docs/trace.md.
 * C99 plus thread-local storage and GCC's __sync builtins (every compiler that builds the
 * instrumented code has them: it needs __attribute__((cleanup)) already).  OpenMP is optional.
 *
 * Layout: state and locking; JSON output; threads and their stacks; units; contexts; the hooks;
 * MPI support for perfeq_mpi.c; writing the trace; initialisation.
 */
#define _POSIX_C_SOURCE 200809L

#include "perfeq_rt.h"
#include "perfeq_rt_internal.h"

#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PERFEQ__TLS __thread
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_THREADS__)
#define PERFEQ__TLS _Thread_local
#else
#error "perfeq: the runtime needs thread-local storage (__thread or C11 _Thread_local)"
#endif

#if !(defined(__GNUC__) || defined(__clang__))
#error "perfeq: the runtime needs GCC's __sync builtins (GCC, Clang, Intel, NVHPC)"
#endif

/* perfeq_mpi.c defines it; without MPI its address is NULL. */
extern const int perfeq__mpi_linked __attribute__((weak));
#define PERFEQ__MPI_LINKED() (&perfeq__mpi_linked != NULL)

#define PERFEQ__TRACE_VERSION 2
#define PERFEQ__TIME_BINS 48 /* bin k: [2^k, 2^(k+1)) ns (bin 0 also 0 ns); the last is open */
#define PERFEQ__DEFAULT_TRACE "perfeq.%r.trace"
#ifndef PERFEQ__HIT_SLOTS /* a power of two; tests build with 1, where every lookup collides */
#define PERFEQ__HIT_SLOTS 256
#endif
#define PERFEQ__SCRATCH_SLOTS 32768

/* ---- state and locking -------------------------------------------------------------------- */

enum {
    PERFEQ__UNINIT = 0, /* no hook has run yet */
    PERFEQ__RECORDING,  /* counting */
    PERFEQ__OFF,        /* PERFEQ_ENABLE=0, or the trace cannot be opened: nothing is written */
    PERFEQ__STOPPED,    /* a problem stopped recording; what was recorded is written at the end */
    PERFEQ__FINISHED    /* the trace is written; nothing more is recorded */
};

typedef struct perfeq__slab {
    struct perfeq__slab *next;
    int thread;
    perfeq_count_t *counts;
} perfeq__slab_t;

/* Moments and a log2 histogram of times (nanoseconds from CLOCK_MONOTONIC): not a log of events. */
typedef struct perfeq__times {
    perfeq_count_t n;
    double sum, sum2;            /* seconds, seconds squared */
    double sdiff2;               /* sum of squared differences of consecutive times (von Neumann) */
    unsigned long long min, max, last; /* nanoseconds */
    perfeq_count_t bins[PERFEQ__TIME_BINS];
} perfeq__times_t;

typedef struct perfeq__mpi_rec {
    struct perfeq__mpi_rec *next;
    const char *call;
    int site, comm_size, comm_rank, root;
    perfeq_count_t calls, elements, bytes;
    perfeq__times_t burst;       /* synchronising calls: compute since the last one returned */
    perfeq__times_t inside;      /* ... and the time inside the call (wait + transfer) */
} perfeq__mpi_rec_t;

struct perfeq_ctx {
    /* first, in the order of perfeq_ctx_head_t (the inline entry's part; checked below) */
    perfeq_count_t *counts;    /* read by PERFEQ_FUNC_BEGIN */
    perfeq_ctx_t *hits[PERFEQ_HITS]; /* the children entered last, one per way (PERFEQ__HIT) */
    perfeq_unit_t *unit;       /* NULL for the scratch and pseudo contexts */
    perfeq_unit_t *caller_unit; /* NULL: call site unknown */
    int func;
    int site;
    int alias;                 /* a recursive call: entering it enters `real`, an ancestor */
    perfeq_count_t calls;
    perfeq_value_stat_t *values;
    int nvalues;
    /* the library's */
    perfeq_ctx_t *parent;      /* the parent in the trace (NULL: a root) */
    perfeq_ctx_t *real;        /* the context children get as parent: itself, or for pseudo
                                * contexts the thread's root (NULL) or the shadowed context */
    int thread;                /* the thread that owns this context */
    int level;                 /* the OpenMP nesting level it was created at (omp_get_level()) */
    int recursive;             /* recursive calls were folded into this context */
    long id;
    int nslots;
    perfeq_count_t regions;
    perfeq_ctx_t *children, *sibling;
    perfeq_ctx_t *node;        /* the tree node this context hangs under (its `children` list) */
    perfeq__slab_t *slabs;     /* *_MT counters of other threads */
    perfeq__mpi_rec_t *mpi;
    perfeq_ctx_t *next;        /* all contexts, in creation order */
};
#define PERFEQ__SAME_OFFSET(field) \
    _Static_assert(offsetof(struct perfeq_ctx, field) == offsetof(perfeq_ctx_head_t, field), \
                   "perfeq_ctx_head_t and struct perfeq_ctx disagree on " #field)
PERFEQ__SAME_OFFSET(counts);
PERFEQ__SAME_OFFSET(hits);
PERFEQ__SAME_OFFSET(unit);
PERFEQ__SAME_OFFSET(caller_unit);
PERFEQ__SAME_OFFSET(func);
PERFEQ__SAME_OFFSET(site);
PERFEQ__SAME_OFFSET(alias);
PERFEQ__SAME_OFFSET(calls);
PERFEQ__SAME_OFFSET(values);
PERFEQ__SAME_OFFSET(nvalues);

typedef struct perfeq__thread {
    perfeq_calls_t hot;        /* first: perfeq_calls_self points here (the inline hooks' part) */
    int id;
    perfeq_ctx_t root;         /* pseudo context: this thread's roots are its children */
    perfeq_ctx_t *shadows;     /* pseudo contexts standing for other threads' region bases */
    perfeq_ctx_t *mpi_ctx;     /* announced MPI call site */
    int mpi_site, mpi_pending;
    unsigned long long sync_since; /* when this thread's last synchronising MPI call returned (ns; 0: none) */
    perfeq_ctx_t *hits[PERFEQ__HIT_SLOTS]; /* contexts entered recently, by (node, callee, call site) */
    struct perfeq__thread *next;
} perfeq__thread_t;

typedef struct perfeq__param {
    struct perfeq__param *next;
    char *name;
    double value;
} perfeq__param_t;

static volatile int perfeq__state = PERFEQ__UNINIT;
static volatile int perfeq__lock_word;
PERFEQ__TLS perfeq_calls_t *perfeq_calls_self;
volatile int perfeq_recording;

/* Every change of state goes through here: the inline hooks read perfeq_recording. */
static void perfeq__set_state(int state)
{
    perfeq__state = state;
    perfeq_recording = state == PERFEQ__RECORDING;
}
/* this thread's state: perfeq_calls_self is its first member */
#define perfeq__self ((perfeq__thread_t *)perfeq_calls_self)

static struct {
    char trace_template[4096];
    char path[4096];
    FILE *file;
    int rank, nranks;
    const char *rank_source;     /* "mpi", "env" or "default" */
    int mpi_started, finished, verbose;
    unsigned long long mpi_started_ns; /* when MPI_Init returned: the first compute burst starts there */
    long pid;                        /* the process that initialised: fork()ed children write nothing */
    unsigned long max_contexts;
    const char *ended;
    char stop_reason[512];
    long next_ctx_id;
    perfeq_ctx_t *ctx_first, *ctx_last;
    perfeq_unit_t *units_first, *units_last;
    int nunits;
    perfeq__thread_t *threads;
    int nthreads;
    perfeq__param_t *params;
    perfeq__mpi_rec_t *mpi_orphans;  /* MPI calls made outside every context */
    perfeq_ctx_t *volatile region_base;
    int team;                        /* the largest OpenMP team seen in a parallel construct */
    unsigned long long errors, dropped, records;
} perfeq__g = {.nranks = 1, .rank_source = "default"};

/* The context hooks get when recording is off: its counters are written to and never read. */
static perfeq_count_t perfeq__scratch_counts[PERFEQ__SCRATCH_SLOTS];
static perfeq_ctx_t perfeq__scratch = {.site = -1, .thread = -1, .id = -1,
                                       .nslots = PERFEQ__SCRATCH_SLOTS,
                                       .counts = perfeq__scratch_counts};

static void perfeq__init(void);
static void perfeq__finish(const char *how);

static void perfeq__lock(void)
{
    while (__sync_lock_test_and_set(&perfeq__lock_word, 1)) {
        while (perfeq__lock_word) {
        }
    }
}

static void perfeq__unlock(void)
{
    __sync_lock_release(&perfeq__lock_word);
}

static int perfeq__recording(void)
{
    if (perfeq__state == PERFEQ__UNINIT)
        perfeq__init();
    return perfeq__state == PERFEQ__RECORDING;
}

/* Stop recording: one line on stderr, the reason goes into the trace's footer. */
static void perfeq__stop(const char *fmt, ...)
{
    va_list ap;
    if (!__sync_bool_compare_and_swap(&perfeq__state, PERFEQ__RECORDING, PERFEQ__STOPPED))
        return;
    perfeq_recording = 0;
    va_start(ap, fmt);
    vsnprintf(perfeq__g.stop_reason, sizeof perfeq__g.stop_reason, fmt, ap);
    va_end(ap);
    fprintf(stderr, "perfeq: %s; recording stopped\n", perfeq__g.stop_reason);
}

static void perfeq__count_error(void)
{
    __sync_fetch_and_add(&perfeq__g.errors, 1ULL);
}

/* ---- JSON output -------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p (2..4), or 0. */
static int perfeq__utf8_length(const unsigned char *p)
{
    int n, i;
    unsigned long cp;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4;
    else
        return 0;
    for (i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3) {
        cp = ((unsigned long)(p[0] & 0x0f) << 12) | ((unsigned long)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
        if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
    } else if (n == 4) {
        cp = ((unsigned long)(p[0] & 0x07) << 18) | ((unsigned long)(p[1] & 0x3f) << 12) |
             ((unsigned long)(p[2] & 0x3f) << 6) | (p[3] & 0x3f);
        if (cp < 0x10000 || cp > 0x10ffff)
            return 0;
    }
    return n;
}

/* A JSON string (or null): escapes quotes, backslashes and control characters; invalid UTF-8
 * becomes U+FFFD. */
static void perfeq__put_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    int n;
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    while (*p) {
        if (*p == '"' || *p == '\\') {
            fputc('\\', f);
            fputc(*p++, f);
        } else if (*p == '\n') {
            fputs("\\n", f);
            p++;
        } else if (*p == '\t') {
            fputs("\\t", f);
            p++;
        } else if (*p == '\r') {
            fputs("\\r", f);
            p++;
        } else if (*p < 0x20) {
            fprintf(f, "\\u%04x", (unsigned)*p++);
        } else if (*p < 0x80) {
            fputc(*p++, f);
        } else if ((n = perfeq__utf8_length(p)) > 0) {
            fwrite(p, 1, (size_t)n, f);
            p += n;
        } else {
            fputs("\\ufffd", f);
            p++;
        }
    }
    fputc('"', f);
}

/* A JSON number; NaN and infinities (not JSON) become null. */
static void perfeq__put_double(FILE *f, double v)
{
    if (v != v || v > DBL_MAX || v < -DBL_MAX)
        fputs("null", f);
    else
        fprintf(f, "%.17g", v);
}

static void perfeq__put_int_or_null(FILE *f, long v)
{
    if (v < 0)
        fputs("null", f);
    else
        fprintf(f, "%ld", v);
}

static void perfeq__end_record(FILE *f)
{
    fputs("}\n", f);
    perfeq__g.records++;
}

/* ---- threads ------------------------------------------------------------------------------ */

static perfeq__thread_t *perfeq__thread(void)
{
    perfeq__thread_t *t = perfeq__self;
    if (t)
        return t;
    t = (perfeq__thread_t *)calloc(1, sizeof *t);
    if (t)
        t->hot.stack = (perfeq_ctx_t **)malloc(64 * sizeof *t->hot.stack);
    if (!t || !t->hot.stack) {
        free(t);
        perfeq__stop("out of memory for a thread's state");
        return NULL;
    }
    t->hot.capacity = 64;
    t->root.real = NULL;
    t->root.site = -1;
    perfeq__lock();
    t->id = perfeq__g.nthreads++;
    t->next = perfeq__g.threads; /* kept reachable: threads may exit before the trace is written */
    perfeq__g.threads = t;
    perfeq__unlock();
    t->root.thread = t->id;
    perfeq_calls_self = &t->hot;
    return t;
}

/* The pseudo context standing, in thread t, for the region base `base` of another thread. */
static perfeq_ctx_t *perfeq__shadow(perfeq__thread_t *t, perfeq_ctx_t *base)
{
    perfeq_ctx_t *s;
    for (s = t->shadows; s; s = s->sibling)
        if (s->real == base)
            return s;
    s = (perfeq_ctx_t *)calloc(1, sizeof *s);
    if (!s) {
        perfeq__stop("out of memory for a thread's base context");
        return NULL;
    }
    s->real = base;
    s->thread = t->id;
    s->site = -1;
    s->sibling = t->shadows;
    t->shadows = s;
    return s;
}

/* Where a function entered now hangs in this thread's tree. */
static perfeq_ctx_t *perfeq__tree_parent(perfeq__thread_t *t)
{
    perfeq_ctx_t *base;
    if (t->hot.depth > 0)
        return t->hot.stack[t->hot.depth - 1];
    base = perfeq__g.region_base;
    if (base && base->thread != t->id)
        return perfeq__shadow(t, base);
    return &t->root;
}

/* Forget call announcements made in frames that are gone. */
static void perfeq__drop_stale_calls(perfeq__thread_t *t)
{
    while (t->hot.ncalls > 0 && t->hot.calls[t->hot.ncalls - 1].depth > t->hot.depth)
        t->hot.ncalls--;
}

/* The call site announced for `name` in the current frame (exact name first, then a call through
 * a function pointer); removes the announcement, and those made after it in this frame: they were
 * made while its arguments were evaluated, so they announced calls that never entered an
 * instrumented function (a straight-line function of another file has no hooks, see
 * instrument/collect/summaries.py; a library function).  Site -1 when none. */
static void perfeq__take_call(perfeq__thread_t *t, const char *name, perfeq_unit_t **unit, int *site)
{
    int i, found = -1;
    perfeq__drop_stale_calls(t);
    for (i = t->hot.ncalls - 1; i >= 0 && t->hot.calls[i].depth == t->hot.depth; i--) {
        const char *callee = t->hot.calls[i].callee;
        if (callee && (callee == name || (callee[0] == name[0] && strcmp(callee, name) == 0))) {
            found = i;
            break;
        }
    }
    if (found < 0)
        for (i = t->hot.ncalls - 1; i >= 0 && t->hot.calls[i].depth == t->hot.depth; i--)
            if (!t->hot.calls[i].callee) {
                found = i;
                break;
            }
    *unit = NULL;
    *site = -1;
    if (found < 0)
        return;
    *unit = t->hot.calls[found].unit;
    *site = t->hot.calls[found].site;
    t->hot.ncalls = found;
}

/* ---- units -------------------------------------------------------------------------------- */

/* A context's counters: the function's own, then those of the leaf functions it calls. */
static int perfeq__slots_of(const perfeq_func_t *f)
{
    return (f->nslots > 0 ? f->nslots : 0) + (f->leaf_slots > 0 ? f->leaf_slots : 0);
}

/* A context's value slots, the same way. */
static int perfeq__values_of(const perfeq_func_t *f)
{
    return (f->nvalues > 0 ? f->nvalues : 0) + (f->leaf_values > 0 ? f->leaf_values : 0);
}

/* Whether every leaf call site's slots lie within its caller's leaf slots (the trace writer reads
 * them). */
static int perfeq__leaves_ok(const perfeq_unit_t *unit)
{
    int i;
    for (i = 0; i < unit->nleaves; i++) {
        const perfeq_leaf_t *l = &unit->leaves[i];
        const perfeq_func_t *caller, *callee;
        if (l->caller < 0 || l->caller >= unit->nfuncs || l->callee < -1 || l->callee >= unit->nfuncs)
            return 0;
        if (l->callee < 0)
            continue;
        caller = &unit->funcs[l->caller];
        callee = &unit->funcs[l->callee];
        if (l->counts < caller->nslots || l->counts + 2 + callee->nslots > perfeq__slots_of(caller)
            || l->values < caller->nvalues || l->values + callee->nvalues > perfeq__values_of(caller))
            return 0;
    }
    return 1;
}

/* Register `unit` (units are written in registration order); 0 if its ABI is not this runtime's. */
static int perfeq__register(perfeq_unit_t *unit)
{
    if (unit->registered)
        return 1;
    perfeq__lock();
    if (!unit->registered) {
        if (unit->abi_version != PERFEQ_ABI_VERSION) {
            perfeq__unlock();
            perfeq__stop("a unit was instrumented for runtime ABI %d but this runtime has ABI %d; "
                         "instrument it again", unit->abi_version, PERFEQ_ABI_VERSION);
            return 0;
        }
        if (!perfeq__leaves_ok(unit)) {
            perfeq__unlock();
            perfeq__stop("unit %s has a leaf call table that does not fit its functions; instrument it "
                         "again", unit->source ? unit->source : "?");
            return 0;
        }
        unit->next = NULL;
        if (perfeq__g.units_last)
            perfeq__g.units_last->next = unit;
        else
            perfeq__g.units_first = unit;
        perfeq__g.units_last = unit;
        unit->registered = ++perfeq__g.nunits; /* the unit's id in the trace, plus one */
    }
    perfeq__unlock();
    return 1;
}

/* `unit` registered (at its first use, or at load time) and `func` one of its functions; 0 if not. */
static int perfeq__unit_ok(perfeq_unit_t *unit, int func)
{
    if (!unit) {
        perfeq__stop("a hook was given no unit");
        return 0;
    }
    if (!perfeq__register(unit))
        return 0;
    if (func < 0 || func >= unit->nfuncs || !unit->funcs) {
        perfeq__stop("unit %s has no function %d (%d functions)", unit->source ? unit->source : "?",
                     func, unit->nfuncs);
        return 0;
    }
    return 1;
}

void perfeq_register_unit(perfeq_unit_t *unit)
{
    if (unit && unit->abi_version == PERFEQ_ABI_VERSION) /* else the first hook says why not */
        perfeq__register(unit);
}

static const char *perfeq__func_name(const perfeq_ctx_t *ctx)
{
    if (!ctx->unit || ctx->func < 0 || ctx->func >= ctx->unit->nfuncs)
        return "?";
    return ctx->unit->funcs[ctx->func].name ? ctx->unit->funcs[ctx->func].name : "?";
}

/* ---- contexts ----------------------------------------------------------------------------- */

/* The scratch context, with room for `nslots` counters. */
static perfeq_ctx_t *perfeq__scratch_for(int nslots)
{
    perfeq_count_t *bigger;
    if (nslots > perfeq__scratch.nslots) {
        perfeq__lock();
        if (nslots > perfeq__scratch.nslots) {
            bigger = (perfeq_count_t *)calloc((size_t)nslots, sizeof *bigger);
            if (bigger) { /* the old array stays allocated: hooks may still hold it */
                perfeq__scratch.counts = bigger;
                perfeq__scratch.nslots = nslots;
            } else {
                perfeq__g.errors++;
            }
        }
        perfeq__unlock();
    }
    return &perfeq__scratch;
}

static void perfeq__saw_team(void);

/* The OpenMP nesting level of the calling thread (0 outside any parallel construct). */
static int perfeq__omp_level(void)
{
#ifdef _OPENMP
    return omp_get_level();
#else
    return 0;
#endif
}

static perfeq_ctx_t *perfeq__new_ctx(perfeq__thread_t *t, perfeq_ctx_t *node, perfeq_unit_t *unit,
                                     int func, perfeq_unit_t *caller_unit, int site)
{
    const perfeq_func_t *f = &unit->funcs[func];
    perfeq_ctx_t *c;
    int nslots = perfeq__slots_of(f);
    int nvalues = perfeq__values_of(f);

    if (perfeq__g.max_contexts && (unsigned long)perfeq__g.next_ctx_id >= perfeq__g.max_contexts) {
        perfeq__stop("more than %lu contexts (PERFEQ_MAX_CONTEXTS) when entering %s; deep recursion?",
                     perfeq__g.max_contexts, f->name ? f->name : "?");
        return NULL;
    }
    c = (perfeq_ctx_t *)calloc(1, sizeof *c);
    if (c) {
        c->counts = (perfeq_count_t *)calloc((size_t)(nslots ? nslots : 1), sizeof *c->counts);
        c->values = (perfeq_value_stat_t *)calloc((size_t)(nvalues ? nvalues : 1), sizeof *c->values);
    }
    if (!c || !c->counts || !c->values) {
        if (c) {
            free(c->counts);
            free(c->values);
        }
        free(c);
        perfeq__stop("out of memory for a context of %s", f->name ? f->name : "?");
        return NULL;
    }
    c->parent = node->real;
    c->real = c;
    c->unit = unit;
    c->func = func;
    c->level = perfeq__omp_level();
    c->caller_unit = caller_unit;
    c->site = site;
    c->thread = t->id;
    /* a function a team's threads call (a parallel loop whose body only calls) shows the team too */
    perfeq__saw_team();
    c->nslots = nslots;
    c->nvalues = nvalues;
    c->sibling = node->children;
    c->node = node;
    node->children = c;
    perfeq__lock();
    c->id = perfeq__g.next_ctx_id++;
    if (perfeq__g.ctx_last)
        perfeq__g.ctx_last->next = c;
    else
        perfeq__g.ctx_first = c;
    perfeq__g.ctx_last = c;
    perfeq__unlock();
    return c;
}

/* The nearest ancestor context of this thread running the same function, created at the same
 * OpenMP nesting level: recursion is folded onto it, so a recursive program keeps a bounded number
 * of contexts.  Not across a parallel construct: the call a section or task makes gets a context of
 * its own whichever thread runs it (the encountering thread folded it onto the ancestor, another
 * thread could not, and the tree's shape depended on which thread ran what: FAILURES.md 190). */
static perfeq_ctx_t *perfeq__recursion_target(perfeq__thread_t *t, perfeq_ctx_t *node, perfeq_unit_t *unit,
                                              int func)
{
    perfeq_ctx_t *a;
    int level = perfeq__omp_level();
    for (a = node->real; a; a = a->parent)
        if (a->thread == t->id && a->unit == unit && a->func == func && a->level == level)
            return a;
    return NULL;
}

/* A child entry of `node` that stands for the ancestor `target` (never written to the trace). */
static perfeq_ctx_t *perfeq__new_alias(perfeq_ctx_t *node, perfeq_ctx_t *target, perfeq_unit_t *unit,
                                       int func, perfeq_unit_t *caller_unit, int site)
{
    perfeq_ctx_t *c = (perfeq_ctx_t *)calloc(1, sizeof *c);
    if (!c) {
        perfeq__stop("out of memory for a recursive call of %s", perfeq__func_name(target));
        return NULL;
    }
    c->alias = 1;
    c->real = target;
    c->unit = unit;
    c->func = func;
    c->caller_unit = caller_unit;
    c->site = site;
    c->thread = target->thread;
    c->id = -1;
    c->sibling = node->children;
    c->node = node;
    node->children = c;
    target->recursive = 1;
    return c;
}

static int perfeq__same_ctx(const perfeq_ctx_t *c, const perfeq_unit_t *unit, int func,
                            const perfeq_unit_t *caller_unit, int site)
{
    return c->unit == unit && c->func == func && c->caller_unit == caller_unit && c->site == site;
}

/* ---- the hooks ---------------------------------------------------------------------------- */

/* The thread's cache entry for the child of `node` for (unit, func) called from (caller_unit, site). */
static perfeq_ctx_t **perfeq__hit_slot(perfeq__thread_t *t, const perfeq_ctx_t *node, const perfeq_unit_t *unit,
                                       int func, const perfeq_unit_t *caller_unit, int site)
{
    uintptr_t key = ((uintptr_t)node >> 4) ^ ((uintptr_t)unit >> 3) ^ (uintptr_t)func * 40503u
                    ^ (uintptr_t)(site + 1) * 2654435761u ^ ((uintptr_t)caller_unit >> 5);
    return &t->hits[(key ^ (key >> 11)) & (PERFEQ__HIT_SLOTS - 1)];
}

/* The child of `node` for (unit, func) called from (caller_unit, site), created at the first call.
 * Hot: every call of an instrumented function comes here.  The node's way (PERFEQ__HIT) is tried first, then
 * the thread's direct-mapped cache (a node whose children are called from several sites in turn,
 * e.g. f(x) + f(y), would otherwise search its children on every call), then the children. */
static perfeq_ctx_t *perfeq__child(perfeq__thread_t *t, perfeq_ctx_t *node, perfeq_unit_t *unit, int func,
                                   perfeq_unit_t *caller_unit, int site)
{
    perfeq_ctx_t **way = &node->hits[PERFEQ__HIT(site)], *c = *way, **slot;

    if (c && perfeq__same_ctx(c, unit, func, caller_unit, site))
        return c;
    slot = perfeq__hit_slot(t, node, unit, func, caller_unit, site);
    c = *slot;
    if (!c || c->node != node || !perfeq__same_ctx(c, unit, func, caller_unit, site)) {
        for (c = node->children; c; c = c->sibling)
            if (perfeq__same_ctx(c, unit, func, caller_unit, site))
                break;
        if (!c) {
            perfeq_ctx_t *ancestor = perfeq__recursion_target(t, node, unit, func);
            c = ancestor ? perfeq__new_alias(node, ancestor, unit, func, caller_unit, site)
                         : perfeq__new_ctx(t, node, unit, func, caller_unit, site);
            if (!c)
                return NULL;
        }
        *slot = c;
    }
    *way = c;
    return c;
}

/* The common call, taken before anything else: an instrumented function calls one of its unit's
 * functions from a call site it has called it from before, in the same context.  The announcement
 * on top is this frame's and names the callee (by the table's own string: the literals of one unit
 * are shared), and the callee's context is the caller's last child or in the thread's cache, where
 * the slow path would find it too; a few loads and compares instead of the checks, the name search
 * and the child look-up (their instructions, on a call in a loop of cache misses, kept the misses of
 * one iteration from overlapping the next: XSBench's lookups took 3x the plain run). */
static perfeq_ctx_t *perfeq__enter_again(perfeq__thread_t *t, perfeq_unit_t *unit, int func)
{
    const perfeq_call_note_t *call;
    perfeq_ctx_t *node, *c;

    if (t->hot.ncalls == 0 || t->hot.depth == 0 || t->hot.depth == t->hot.capacity)
        return NULL;
    call = &t->hot.calls[t->hot.ncalls - 1];
    if (call->depth != t->hot.depth || !perfeq__names(&t->hot, call, unit->funcs[func].name))
        return NULL;
    node = t->hot.stack[t->hot.depth - 1];
    c = node->hits[PERFEQ__HIT(call->site)];
    if (!c || !perfeq__same_ctx(c, unit, func, call->unit, call->site)) {
        c = *perfeq__hit_slot(t, node, unit, func, call->unit, call->site);
        if (!c || c->node != node || !perfeq__same_ctx(c, unit, func, call->unit, call->site))
            return NULL;
        node->hits[PERFEQ__HIT(call->site)] = c;
    }
    t->hot.ncalls--;
    if (c->alias)
        c = c->real;
    t->hot.stack[t->hot.depth++] = c;
    c->calls++;
    return c;
}

/* Kept out of line, so that the common paths of the hooks save no registers (GCC and Clang). */
#if defined(__GNUC__) || defined(__clang__)
#define PERFEQ__COLD __attribute__((noinline, cold))
#else
#define PERFEQ__COLD
#endif

static PERFEQ__COLD perfeq_ctx_t *perfeq__enter_slow(perfeq_unit_t *unit, int func);

perfeq_ctx_t *perfeq_enter(perfeq_unit_t *unit, int func)
{
    perfeq__thread_t *t = perfeq__self;
    perfeq_ctx_t *c;

    if (t && perfeq__state == PERFEQ__RECORDING && (c = perfeq__enter_again(t, unit, func)))
        return c;
    return perfeq__enter_slow(unit, func);
}

static perfeq_ctx_t *perfeq__enter_slow(perfeq_unit_t *unit, int func)
{
    perfeq__thread_t *t;
    perfeq_ctx_t *node, *c;
    perfeq_unit_t *caller_unit;
    int site;

    if (!perfeq__recording() || !perfeq__unit_ok(unit, func) || !(t = perfeq__thread()))
        goto scratch;
    node = perfeq__tree_parent(t);
    if (!node)
        goto scratch;
    perfeq__take_call(t, unit->funcs[func].name ? unit->funcs[func].name : "", &caller_unit, &site);
    c = perfeq__child(t, node, unit, func, caller_unit, site);
    if (!c)
        goto scratch;
    if (c->alias)
        c = c->real;
    if (t->hot.depth == t->hot.capacity) {
        perfeq_ctx_t **bigger = (perfeq_ctx_t **)realloc(t->hot.stack, 2 * (size_t)t->hot.capacity * sizeof *bigger);
        if (!bigger) {
            perfeq__stop("out of memory for the call stack (depth %d)", t->hot.depth);
            goto scratch;
        }
        t->hot.stack = bigger;
        t->hot.capacity *= 2;
    }
    t->hot.stack[t->hot.depth++] = c;
    c->calls++;
    return c;
scratch:
    return perfeq__scratch_for(unit && unit->abi_version == PERFEQ_ABI_VERSION && unit->funcs && func >= 0
                               && func < unit->nfuncs ? perfeq__slots_of(&unit->funcs[func]) : 0);
}

void perfeq_leave(perfeq_ctx_t *ctx)
{
    perfeq__thread_t *t;
    if (!ctx || !ctx->unit || perfeq__state != PERFEQ__RECORDING)
        return;
    t = perfeq__self;
    if (!t || t->hot.depth == 0 || t->hot.stack[t->hot.depth - 1] != ctx) {
        perfeq__stop("misnested hooks: leaving %s while %s is the innermost open function "
                     "(longjmp, or a hook missing its cleanup?)",
                     perfeq__func_name(ctx),
                     (t && t->hot.depth) ? perfeq__func_name(t->hot.stack[t->hot.depth - 1]) : "no function");
        return;
    }
    t->hot.depth--;
    perfeq__drop_stale_calls(t);
}

void perfeq_leave_guard(perfeq_ctx_t **ctx)
{
    if (ctx)
        perfeq_leave(*ctx);
}

perfeq_count_t *perfeq_counts(perfeq_ctx_t *ctx)
{
    return ctx ? ctx->counts : perfeq__scratch.counts;
}

/* The team of the parallel construct this thread runs in: the trace's thread count is the largest
 * (a num_threads(k) clause or omp_set_num_threads() makes it differ from omp_get_max_threads() at
 * the start: Benchmarks Game spectralnorm's num_threads(GetThreadCount()) from the affinity mask).
 * Every member of a team larger than any before takes its context's slab here at least once. */
#ifdef _OPENMP
static void perfeq__note_team(int team)
{
    int seen = perfeq__g.team;
    while (team > seen && !__sync_bool_compare_and_swap(&perfeq__g.team, seen, team))
        seen = perfeq__g.team;
}
#endif

static void perfeq__saw_team(void)
{
#ifdef _OPENMP
    perfeq__note_team(omp_get_num_threads());
#endif
}

perfeq_count_t *perfeq_counts_mt(perfeq_ctx_t *ctx)
{
    perfeq__thread_t *t;
    perfeq__slab_t *s;
    perfeq_count_t *counts;

    if (!ctx)
        return perfeq__scratch.counts;
    if (!ctx->unit)
        return ctx->counts;
    t = perfeq__self ? perfeq__self : perfeq__thread();
    if (!t)
        return perfeq__scratch_for(ctx->nslots)->counts;
    if (t->hot.mt_ctx == ctx)
        return t->hot.mt_counts;
    if (ctx->thread == t->id) {
        counts = ctx->counts;
    } else {
        perfeq__lock();
        for (s = ctx->slabs; s; s = s->next)
            if (s->thread == t->id)
                break;
        if (!s) {
            s = (perfeq__slab_t *)calloc(1, sizeof *s);
            if (s)
                s->counts = (perfeq_count_t *)calloc((size_t)(ctx->nslots ? ctx->nslots : 1), sizeof *s->counts);
            if (!s || !s->counts) {
                free(s);
                perfeq__unlock();
                perfeq__stop("out of memory for a thread's counters of %s", perfeq__func_name(ctx));
                return perfeq__scratch_for(ctx->nslots)->counts;
            }
            s->thread = t->id;
            s->next = ctx->slabs;
            ctx->slabs = s;
        }
        perfeq__unlock();
        counts = s->counts;
    }
    perfeq__saw_team();
    t->hot.mt_ctx = ctx;
    t->hot.mt_counts = counts;
    return counts;
}

void perfeq_call_site(perfeq_unit_t *unit, int site, const char *callee)
{
    perfeq__thread_t *t;
    int i;
    if (!perfeq__recording() || !(t = perfeq__thread()))
        return;
    perfeq__drop_stale_calls(t);
    for (i = t->hot.ncalls - 1; i >= 0 && t->hot.calls[i].depth == t->hot.depth; i--)
        if (t->hot.calls[i].site == site && t->hot.calls[i].unit == unit) {
            /* the same call again: the earlier announcement, and those after it, entered nothing */
            t->hot.ncalls = i;
            break;
        }
    if (t->hot.ncalls == PERFEQ_PENDING_CALLS) { /* announcements of calls to uninstrumented functions */
        memmove(t->hot.calls, t->hot.calls + 1, (PERFEQ_PENDING_CALLS - 1) * sizeof t->hot.calls[0]);
        t->hot.ncalls--;
    }
    t->hot.calls[t->hot.ncalls].unit = unit;
    t->hot.calls[t->hot.ncalls].site = site;
    t->hot.calls[t->hot.ncalls].callee = callee;
    t->hot.calls[t->hot.ncalls].depth = t->hot.depth;
    t->hot.ncalls++;
}

void perfeq_mpi_site(perfeq_ctx_t *ctx, int site)
{
    perfeq__thread_t *t;
    if (!perfeq__recording() || !ctx || !ctx->unit || !(t = perfeq__thread()))
        return;
    t->mpi_ctx = ctx;
    t->mpi_site = site;
    t->mpi_pending = 1;
}

perfeq_count_t *perfeq_twin_scratch(const perfeq_unit_t *unit, int k)
{
    int callee = unit && unit->leaves && k >= 0 && k < unit->nleaves ? unit->leaves[k].callee : -1;
    int nslots = callee >= 0 && callee < unit->nfuncs ? perfeq__slots_of(&unit->funcs[callee]) : 1;
    return perfeq__scratch_for(nslots)->counts;
}

void perfeq_leaf_first(perfeq_ctx_t *ctx, const perfeq_leaf_t *leaf)
{
    perfeq__lock(); /* once per context and site: the threads of a team each see their first call */
    if (!ctx->counts[leaf->counts + 1])
        ctx->counts[leaf->counts + 1] = (perfeq_count_t)perfeq__g.next_ctx_id++ + 1;
    perfeq__unlock();
}

void perfeq_value(perfeq_ctx_t *ctx, int slot, double value)
{
    if (!ctx || !ctx->unit || perfeq__state != PERFEQ__RECORDING)
        return;
    if (slot < 0 || slot >= ctx->nvalues) {
        perfeq__count_error();
        return;
    }
    perfeq__lock(); /* worker threads may record into their master's context */
    perfeq__value_add(&ctx->values[slot], value);
    perfeq__unlock();
}

size_t perfeq_size(perfeq_ctx_t *ctx, int slot, size_t bytes)
{
    perfeq_value(ctx, slot, (double)bytes);
    return bytes;
}

void perfeq_region(perfeq_ctx_t *ctx, int slot)
{
    perfeq__thread_t *t;
    if (!ctx)
        return;
    perfeq_counts_mt(ctx)[slot]++;
    if (!ctx->unit || perfeq__state != PERFEQ__RECORDING)
        return;
    __sync_fetch_and_add(&ctx->regions, 1ULL);
    t = perfeq__self;
    if (t && t->id == ctx->thread)
        perfeq__g.region_base = ctx;
}

/* A parallel construct without num_threads or if clauses, entered from serial code: the team it
 * forks is omp_get_max_threads(), seen here even when none of its threads runs a hook (a parallel
 * loop whose trips were counted at its entry: the run was read as one thread's). */
void perfeq_region_team(perfeq_ctx_t *ctx, int slot)
{
    perfeq_region(ctx, slot);
#ifdef _OPENMP
    if (!omp_in_parallel())
        perfeq__note_team(omp_get_max_threads());
#endif
}

void perfeq_param(const char *name, double value)
{
    perfeq__param_t *p;
    size_t len;
    if (!perfeq__recording() || !name)
        return;
    perfeq__lock();
    for (p = perfeq__g.params; p; p = p->next)
        if (strcmp(p->name, name) == 0)
            break;
    if (!p) {
        len = strlen(name);
        p = (perfeq__param_t *)calloc(1, sizeof *p);
        if (p)
            p->name = (char *)malloc(len + 1);
        if (!p || !p->name) {
            free(p);
            perfeq__g.dropped++;
            perfeq__unlock();
            perfeq__stop("out of memory for parameter %s", name);
            return;
        }
        memcpy(p->name, name, len + 1);
        p->next = perfeq__g.params;
        perfeq__g.params = p;
    }
    p->value = value;
    perfeq__unlock();
}

void perfeq_finish(void)
{
    perfeq__finish("call");
}

/* ---- MPI support (called by the generated wrappers in perfeq_mpi.c) ------------------------ */

void perfeq__mpi_take_site(perfeq__mpi_where_t *where)
{
    perfeq__thread_t *t = perfeq__self;
    where->ctx = NULL;
    where->site = -1;
    if (!t)
        return;
    if (t->mpi_pending) {
        where->ctx = t->mpi_ctx;
        where->site = t->mpi_site;
        t->mpi_pending = 0;
    } else if (t->hot.depth > 0) {
        where->ctx = t->hot.stack[t->hot.depth - 1];
    }
}

unsigned long long perfeq__mpi_now(void)
{
#ifdef PERFEQ_NO_TIMES
    return 0;
#else
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
#endif
}

/* Seconds since the epoch, for the trace header.  Not time(NULL): a program may have a global of
 * that name (TUM's Jacobi solver, `double *time;`), and the linker then binds the runtime's call
 * to the program's data (SIGSEGV at the first trace written). */
static long perfeq__wall_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return 0;
    return (long)ts.tv_sec;
}

static void perfeq__add_time(perfeq__times_t *times, unsigned long long ns)
{
    double seconds = (double)ns * 1e-9;
    int bin = ns ? 63 - __builtin_clzll(ns) : 0; /* floor(log2 ns) */
    if (bin > PERFEQ__TIME_BINS - 1)
        bin = PERFEQ__TIME_BINS - 1;
    if (times->n) {
        double step = seconds - (double)times->last * 1e-9;
        times->sdiff2 += step * step;
    }
    times->last = ns;
    if (times->n == 0 || ns < times->min)
        times->min = ns;
    if (ns > times->max)
        times->max = ns;
    times->n++;
    times->sum += seconds;
    times->sum2 += seconds * seconds;
    times->bins[bin]++;
}

void perfeq__mpi_record(const perfeq__mpi_where_t *where, const char *call, long long elements,
                        long long bytes, int comm_size, int comm_rank, int root, unsigned long long entered,
                        unsigned long long left)
{
    perfeq__mpi_rec_t **list, *r;
    perfeq_ctx_t *ctx = where->ctx;
    perfeq__thread_t *t;
    unsigned long long since = 0;
    int site = where->site;
    if (!perfeq__recording())
        return;
    if (entered && left) { /* a synchronising call: its burst starts where the last one returned */
        t = perfeq__thread();
        if (t) {
            since = t->sync_since ? t->sync_since : perfeq__g.mpi_started_ns;
            t->sync_since = left;
        }
        if (since > entered || left < entered)
            since = 0;
    }
    if (!ctx || !ctx->unit) {
        ctx = NULL;
        site = -1;
    }
    perfeq__lock();
    list = ctx ? &ctx->mpi : &perfeq__g.mpi_orphans;
    for (r = *list; r; r = r->next)
        if (r->call == call && r->site == site && r->comm_size == comm_size &&
            r->comm_rank == comm_rank && r->root == root)
            break;
    if (!r) {
        r = (perfeq__mpi_rec_t *)calloc(1, sizeof *r);
        if (!r) {
            perfeq__g.dropped++;
            perfeq__unlock();
            perfeq__stop("out of memory for the record of %s", call);
            return;
        }
        r->call = call;
        r->site = site;
        r->comm_size = comm_size;
        r->comm_rank = comm_rank;
        r->root = root;
        r->next = *list;
        *list = r;
    }
    r->calls++;
    if (since) {
        perfeq__add_time(&r->burst, entered - since);
        perfeq__add_time(&r->inside, left - entered);
    }
    r->elements += (perfeq_count_t)(elements > 0 ? elements : 0);
    r->bytes += (perfeq_count_t)(bytes > 0 ? bytes : 0);
    perfeq__unlock();
}

static void perfeq__open_trace(void);

void perfeq__mpi_started(int rank, int nranks)
{
    int recording = perfeq__recording();
    perfeq__lock();
    perfeq__g.rank = rank;
    perfeq__g.nranks = nranks;
    perfeq__g.rank_source = "mpi";
    perfeq__g.mpi_started = 1;
    perfeq__g.mpi_started_ns = perfeq__mpi_now();
    if (recording && !perfeq__g.file && !perfeq__g.finished)
        perfeq__open_trace();
    perfeq__unlock();
}

void perfeq__mpi_finalizing(void)
{
    perfeq__finish("finalize");
}

/* ---- writing the trace -------------------------------------------------------------------- */

/* Rank and size from the launcher's environment, for processes that never initialise MPI. */
static void perfeq__rank_from_env(void)
{
    static const char *const names[][2] = {{"PMI_RANK", "PMI_SIZE"},
                                           {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                           {"PMIX_RANK", NULL},
                                           {"SLURM_PROCID", "SLURM_NTASKS"}};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *r = getenv(names[i][0]);
        const char *n = names[i][1] ? getenv(names[i][1]) : NULL;
        if (r && *r) {
            perfeq__g.rank = atoi(r);
            perfeq__g.nranks = (n && *n) ? atoi(n) : perfeq__g.rank + 1;
            perfeq__g.rank_source = "env";
            return;
        }
    }
}

/* Expand %r (rank), %p (process id) and %% in the trace path; ".<rank>" is appended when several
 * ranks would otherwise share one file.  0 on success. */
static int perfeq__expand_path(char *out, size_t size)
{
    const char *s = perfeq__g.trace_template;
    size_t used = 0;
    int has_rank = 0, n;
    char piece[32];
    for (; *s; s++) {
        const char *add = piece;
        if (s[0] == '%' && s[1] == 'r') {
            snprintf(piece, sizeof piece, "%d", perfeq__g.rank);
            has_rank = 1;
            s++;
        } else if (s[0] == '%' && s[1] == 'p') {
            snprintf(piece, sizeof piece, "%ld", (long)getpid());
            s++;
        } else if (s[0] == '%' && s[1] == '%') {
            add = "%";
            s++;
        } else {
            piece[0] = *s;
            piece[1] = '\0';
        }
        n = (int)strlen(add);
        if (used + (size_t)n + 1 > size)
            return -1;
        memcpy(out + used, add, (size_t)n + 1);
        used += (size_t)n;
    }
    if (!has_rank && perfeq__g.nranks > 1) {
        n = snprintf(out + used, size - used, ".%d", perfeq__g.rank);
        if (n < 0 || (size_t)n >= size - used)
            return -1;
    }
    return 0;
}

/* The command line, from /proc/self/cmdline: a JSON array, and the program name. */
static void perfeq__put_argv(FILE *f, int as_program)
{
    char buf[16384];
    size_t n = 0, i;
    int first = 1;
    FILE *in = fopen("/proc/self/cmdline", "rb");
    if (in) {
        n = fread(buf, 1, sizeof buf - 1, in);
        fclose(in);
    }
    buf[n] = '\0';
    if (as_program) {
        perfeq__put_string(f, n ? buf : "");
        return;
    }
    fputc('[', f);
    for (i = 0; i < n; i += strlen(buf + i) + 1) {
        if (!first)
            fputc(',', f);
        perfeq__put_string(f, buf + i);
        first = 0;
    }
    fputc(']', f);
}

/* Open the trace file and write the header line (called with the lock held). */
static void perfeq__open_trace(void)
{
    FILE *f;
    if (!perfeq__g.mpi_started)
        perfeq__rank_from_env();
    if (perfeq__expand_path(perfeq__g.path, sizeof perfeq__g.path) != 0) {
        fprintf(stderr, "perfeq: the trace path %s is too long; nothing will be written\n",
                perfeq__g.trace_template);
        perfeq__set_state(PERFEQ__OFF);
        return;
    }
    f = fopen(perfeq__g.path, "w");
    if (!f) {
        fprintf(stderr, "perfeq: cannot write the trace %s: %s; nothing will be written\n",
                perfeq__g.path, strerror(errno));
        perfeq__set_state(PERFEQ__OFF);
        return;
    }
    perfeq__g.file = f;
    fprintf(f, "{\"record\":\"header\",\"format\":\"perfeq-trace\",\"version\":%d,\"abi\":%d,\"program\":",
            PERFEQ__TRACE_VERSION, PERFEQ_ABI_VERSION);
    perfeq__put_argv(f, 1);
    fputs(",\"argv\":", f);
    perfeq__put_argv(f, 0);
    fprintf(f, ",\"rank\":%d,\"nranks\":%d,\"rank_source\":\"%s\",\"mpi\":%s,\"nthreads\":",
            perfeq__g.rank, perfeq__g.nranks, perfeq__g.rank_source,
            PERFEQ__MPI_LINKED() ? "true" : "false");
#ifdef _OPENMP
    fprintf(f, "%d", omp_get_max_threads());
#else
    fputs("null", f);
#endif
    fprintf(f, ",\"pid\":%ld,\"time\":%ld,\"clock\":\"CLOCK_MONOTONIC\",\"times\":%s", (long)getpid(),
            perfeq__wall_seconds(), perfeq__mpi_now() ? "true" : "false");
    perfeq__end_record(f);
    fflush(f);
}

/* "name":{"n":..,"sum":..,"sum2":..,"sdiff2":..,"min":..,"max":..,"bins":[[k,count],...]} (seconds; bins sparse) */
static void perfeq__put_times(FILE *f, const char *name, const perfeq__times_t *times)
{
    int k, any = 0;
    fprintf(f, ",\"%s\":{\"n\":%llu,\"sum\":", name, times->n);
    perfeq__put_double(f, times->sum);
    fputs(",\"sum2\":", f);
    perfeq__put_double(f, times->sum2);
    fputs(",\"sdiff2\":", f);
    perfeq__put_double(f, times->sdiff2);
    fputs(",\"min\":", f);
    perfeq__put_double(f, (double)times->min * 1e-9);
    fputs(",\"max\":", f);
    perfeq__put_double(f, (double)times->max * 1e-9);
    fputs(",\"bins\":[", f);
    for (k = 0; k < PERFEQ__TIME_BINS; k++) {
        if (!times->bins[k])
            continue;
        fprintf(f, "%s[%d,%llu]", any ? "," : "", k, times->bins[k]);
        any = 1;
    }
    fputs("]}", f);
}

static void perfeq__write_mpi(FILE *f, const perfeq__mpi_rec_t *r, long ctx_id)
{
    for (; r; r = r->next) {
        fputs("{\"record\":\"mpi\",\"context\":", f);
        perfeq__put_int_or_null(f, ctx_id);
        fputs(",\"site\":", f);
        perfeq__put_int_or_null(f, r->site);
        fputs(",\"call\":", f);
        perfeq__put_string(f, r->call);
        fprintf(f, ",\"calls\":%llu,\"elements\":%llu,\"bytes\":%llu,\"comm_size\":", r->calls,
                r->elements, r->bytes);
        perfeq__put_int_or_null(f, r->comm_size);
        fputs(",\"comm_rank\":", f);
        perfeq__put_int_or_null(f, r->comm_rank);
        fputs(",\"root\":", f);
        perfeq__put_int_or_null(f, r->root);
        if (r->burst.n) {
            perfeq__put_times(f, "burst", &r->burst);
            perfeq__put_times(f, "inside", &r->inside);
        }
        perfeq__end_record(f);
    }
}

static void perfeq__write_header(FILE *f, long id, long parent, int unit, int func, int caller_unit, int site,
                                 int thread, perfeq_count_t calls, perfeq_count_t regions, int recursive)
{
    fprintf(f, "{\"record\":\"context\",\"id\":%ld,\"parent\":", id);
    perfeq__put_int_or_null(f, parent);
    fprintf(f, ",\"unit\":%d,\"func\":%d,\"caller_unit\":", unit, func);
    perfeq__put_int_or_null(f, caller_unit);
    fputs(",\"site\":", f);
    perfeq__put_int_or_null(f, site);
    fprintf(f, ",\"thread\":%d,\"calls\":%llu,\"regions\":%llu,\"recursive\":%s", thread, calls,
            regions, recursive ? "true" : "false");
    perfeq__end_record(f);
}

/* A context's counters and value slots (those recorded). */
static void perfeq__write_slots(FILE *f, long id, const perfeq_count_t *counts, int nslots,
                                const perfeq_value_stat_t *values, int nvalues)
{
    int i, any;
    for (any = 0, i = 0; i < nslots; i++) {
        if (!counts[i])
            continue;
        if (!any)
            fprintf(f, "{\"record\":\"counters\",\"context\":%ld,\"counts\":[", id);
        fprintf(f, "%s[%d,%llu]", any ? "," : "", i, counts[i]);
        any = 1;
    }
    if (any) {
        fputc(']', f);
        perfeq__end_record(f);
    }
    for (any = 0, i = 0; i < nvalues; i++) {
        const perfeq_value_stat_t *v = &values[i];
        if (!v->n)
            continue;
        if (!any)
            fprintf(f, "{\"record\":\"values\",\"context\":%ld,\"values\":[", id);
        fprintf(f, "%s{\"slot\":%d,\"n\":%llu,\"first\":", any ? "," : "", i, v->n);
        perfeq__put_double(f, v->first);
        fputs(",\"last\":", f);
        perfeq__put_double(f, v->last);
        fputs(",\"min\":", f);
        perfeq__put_double(f, v->min);
        fputs(",\"max\":", f);
        perfeq__put_double(f, v->max);
        fputs(",\"sum\":", f);
        perfeq__put_double(f, v->sum);
        fputc('}', f);
        any = 1;
    }
    if (any) {
        fputc(']', f);
        perfeq__end_record(f);
    }
}

static void perfeq__write_context(FILE *f, perfeq_ctx_t *c)
{
    const perfeq_unit_t *u = c->unit;
    perfeq__write_header(f, c->id, c->parent ? c->parent->id : -1, u->registered - 1, c->func,
                         c->caller_unit ? c->caller_unit->registered - 1 : -1, c->site, c->thread, c->calls,
                         c->regions, c->recursive);
    perfeq__write_slots(f, c->id, c->counts, u->funcs[c->func].nslots, c->values, u->funcs[c->func].nvalues);
    perfeq__write_mpi(f, c->mpi, c->id);
}

/* The context of a leaf function called from leaf call site `l` of context `c`: its calls, its id
 * (taken at the first call, perfeq_leaf_first), its counters and values are c's slots for the site. */
static void perfeq__write_leaf(FILE *f, const perfeq_ctx_t *c, const perfeq_leaf_t *l)
{
    const perfeq_unit_t *u = c->unit;
    long id = (long)c->counts[l->counts + 1] - 1;
    perfeq__write_header(f, id, c->id, u->registered - 1, l->callee, u->registered - 1, l->site, c->thread,
                         c->counts[l->counts], 0, 0);
    perfeq__write_slots(f, id, c->counts + l->counts + 2, u->funcs[l->callee].nslots, c->values + l->values,
                        u->funcs[l->callee].nvalues);
}

/* Whether leaf call site `l` of c's unit is one of c's function and its leaf was called there. */
static int perfeq__leaf_called(const perfeq_ctx_t *c, const perfeq_leaf_t *l)
{
    return l->caller == c->func && l->callee >= 0 && c->counts[l->counts];
}

/* A real context (leaf NULL), or the context of leaf call site `leaf` of context `ctx`. */
typedef struct perfeq__written {
    perfeq_ctx_t *ctx;
    const perfeq_leaf_t *leaf;
} perfeq__written_t;

/* Every context in id order (the order of first entry), the leaf functions' among them: the same
 * records a run without leaf calls writes. */
static void perfeq__write_contexts(FILE *f)
{
    long n = perfeq__g.next_ctx_id, id;
    perfeq__written_t *order = (perfeq__written_t *)calloc((size_t)(n > 0 ? n : 1), sizeof *order);
    perfeq_ctx_t *c;
    perfeq__slab_t *s;
    int i;
    /* the trace sums the threads' slabs, leaf sites' slots included (a leaf's twin called in a
     * parallel construct counts its calls there: perfeq__leaf_called reads the sums) */
    for (c = perfeq__g.ctx_first; c; c = c->next)
        for (s = c->slabs; s; s = s->next) {
            for (i = 0; i < c->nslots; i++)
                c->counts[i] += s->counts[i];
            memset(s->counts, 0, (size_t)c->nslots * sizeof *s->counts);
        }
    if (!order) { /* out of memory: creation order, each leaf context after its caller */
        for (c = perfeq__g.ctx_first; c; c = c->next) {
            perfeq__write_context(f, c);
            for (i = 0; i < c->unit->nleaves; i++)
                if (perfeq__leaf_called(c, &c->unit->leaves[i]))
                    perfeq__write_leaf(f, c, &c->unit->leaves[i]);
        }
        return;
    }
    for (c = perfeq__g.ctx_first; c; c = c->next) {
        if (c->id >= 0 && c->id < n)
            order[c->id].ctx = c;
        for (i = 0; i < c->unit->nleaves; i++) {
            const perfeq_leaf_t *l = &c->unit->leaves[i];
            if (!perfeq__leaf_called(c, l))
                continue;
            id = (long)c->counts[l->counts + 1] - 1;
            if (id >= 0 && id < n && !order[id].ctx) {
                order[id].ctx = c;
                order[id].leaf = l;
            }
        }
    }
    for (id = 0; id < n; id++) {
        if (order[id].leaf)
            perfeq__write_leaf(f, order[id].ctx, order[id].leaf);
        else if (order[id].ctx)
            perfeq__write_context(f, order[id].ctx);
    }
    free(order);
}

static void perfeq__write_body(FILE *f)
{
    const perfeq_unit_t *u;
    const perfeq__param_t *p;
    int i;
    for (u = perfeq__g.units_first; u; u = u->next) {
        fprintf(f, "{\"record\":\"unit\",\"id\":%d,\"abi\":%d,\"source\":", u->registered - 1, u->abi_version);
        perfeq__put_string(f, u->source);
        fputs(",\"descriptors\":", f);
        perfeq__put_string(f, u->descriptors);
        fputs(",\"digest\":", f);
        perfeq__put_string(f, u->digest);
        fputs(",\"functions\":[", f);
        for (i = 0; i < u->nfuncs; i++) {
            fputs(i ? ",{\"name\":" : "{\"name\":", f);
            perfeq__put_string(f, u->funcs[i].name);
            fprintf(f, ",\"nslots\":%d,\"nvalues\":%d}", u->funcs[i].nslots, u->funcs[i].nvalues);
        }
        fputc(']', f);
        perfeq__end_record(f);
    }
    perfeq__write_contexts(f);
    perfeq__write_mpi(f, perfeq__g.mpi_orphans, -1);
    fputs("{\"record\":\"params\",\"params\":{", f);
    for (p = perfeq__g.params; p; p = p->next) {
        perfeq__put_string(f, p->name);
        fputc(':', f);
        perfeq__put_double(f, p->value);
        if (p->next)
            fputc(',', f);
    }
    fputc('}', f);
    perfeq__end_record(f);
    fprintf(f, "{\"record\":\"footer\",\"records\":%llu,\"units\":%d,\"contexts\":%ld,\"threads\":%d,\"team\":%d,"
               "\"errors\":%llu,\"dropped\":%llu,\"stopped\":%s,\"stop_reason\":",
            perfeq__g.records, perfeq__g.nunits, perfeq__g.next_ctx_id, perfeq__g.nthreads, perfeq__g.team,
            perfeq__g.errors, perfeq__g.dropped, perfeq__g.stop_reason[0] ? "true" : "false");
    perfeq__put_string(f, perfeq__g.stop_reason[0] ? perfeq__g.stop_reason : NULL);
    fputs(",\"ended\":", f);
    perfeq__put_string(f, perfeq__g.ended);
    perfeq__end_record(f);
}

/* Write the trace once; afterwards every hook is a no-op. */
static void perfeq__finish(const char *how)
{
    int state;
    FILE *f;
    perfeq__lock();
    state = perfeq__state;
    if (perfeq__g.finished || (state != PERFEQ__RECORDING && state != PERFEQ__STOPPED) ||
        perfeq__g.pid != (long)getpid()) {
        perfeq__unlock();
        return;
    }
    perfeq__g.finished = 1;
    perfeq__g.ended = how;
    perfeq__set_state(PERFEQ__FINISHED);
    __sync_synchronize();
    if (!perfeq__g.file)
        perfeq__open_trace();
    f = perfeq__g.file;
    if (f) {
        perfeq__write_body(f);
        if (ferror(f) | fclose(f)) /* both: the file must be closed either way */
            fprintf(stderr, "perfeq: writing the trace %s failed: %s\n", perfeq__g.path, strerror(errno));
        else if (perfeq__g.verbose)
            fprintf(stderr, "perfeq: trace written to %s (%ld contexts)\n", perfeq__g.path,
                    perfeq__g.next_ctx_id);
        perfeq__g.file = NULL;
    }
    perfeq__unlock();
}

/* ---- initialisation ----------------------------------------------------------------------- */

static void perfeq__at_exit(void)
{
    perfeq__finish("exit");
}

static void perfeq__init(void)
{
    const char *env;
    int open_now = 0;
    perfeq__lock();
    if (perfeq__state != PERFEQ__UNINIT) {
        perfeq__unlock();
        return;
    }
    env = getenv("PERFEQ_TRACE");
    if (!env || !*env)
        env = PERFEQ__DEFAULT_TRACE;
    if (strlen(env) >= sizeof perfeq__g.trace_template) {
        fprintf(stderr, "perfeq: PERFEQ_TRACE is too long; nothing will be written\n");
        perfeq__set_state(PERFEQ__OFF);
        perfeq__unlock();
        return;
    }
    strcpy(perfeq__g.trace_template, env);
    perfeq__g.pid = (long)getpid();
    env = getenv("PERFEQ_VERBOSE");
    perfeq__g.verbose = env && strcmp(env, "1") == 0;
    env = getenv("PERFEQ_MAX_CONTEXTS");
    perfeq__g.max_contexts = env ? strtoul(env, NULL, 10) : 0;
    env = getenv("PERFEQ_ENABLE");
    if (env && strcmp(env, "0") == 0) {
        perfeq__set_state(PERFEQ__OFF);
    } else if (atexit(perfeq__at_exit) != 0) {
        fprintf(stderr, "perfeq: cannot register the exit handler; nothing will be written\n");
        perfeq__set_state(PERFEQ__OFF);
    } else {
        perfeq__set_state(PERFEQ__RECORDING);
        /* MPI programs open the trace in MPI_Init, once the rank is known. */
        open_now = !PERFEQ__MPI_LINKED() || perfeq__g.mpi_started;
    }
    if (open_now)
        perfeq__open_trace();
    perfeq__unlock();
}
