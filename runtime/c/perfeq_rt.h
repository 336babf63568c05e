/* perfeq_rt.h -- the perfeq runtime library: counts what one small instrumentation run does.
 *
 * Part of perfeq stage 2 (runtime/).  The instrumenter (perfeq.instrument) inserts the PERFEQ_*
 * macros below into a copy of the user's source; this library, linked into the program, keeps the
 * counters per call-graph context and writes a trace (JSON Lines, format "perfeq-trace" version 2,
 * see docs/trace.md) when the program ends (MPI_Finalize, return from main, or exit()).
 *
 * Conventions (the Caliper / Score-P mould):
 *   - every public name starts with perfeq_ / PERFEQ_; instrumented code uses the locals
 *     perfeq__x (the current context) and perfeq__c (its counter array);
 *   - integer site ids: the instrumenter gives every function, block, loop, conditional, call site,
 *     MPI call and value slot of a translation unit ("unit") a small integer, and describes them in
 *     the unit's descriptor file (docs/descriptors.md); there are no string look-ups per event;
 *   - compile with -DPERFEQ_OFF and every hook becomes nothing (conditions stay as written), so
 *     one instrumented source builds both ways;
 *   - a leaf function (it calls none of the program's) called from a leaf call site of its unit's
 *     serial code counts into the caller's context (PERFEQ_LEAF_*, the unit's perfeq_leaf_t
 *     table); the trace writer shows it as the caller's child.  -DPERFEQ_NO_LEAVES turns that off;
 *   - the library never aborts the host program: a failed fopen/malloc or a misnested hook prints
 *     one line on stderr ("perfeq: ..."), stops recording, and marks the trace; the program's
 *     output and exit status are unchanged.
 *
 * Environment variables (read once, at the first hook):
 *   PERFEQ_TRACE    trace path; "%r" is replaced by the MPI rank, "%p" by the process id
 *                   (default "perfeq.%r.trace"; without "%r", several ranks append ".<rank>";
 *                   `perfeq run` sets it to a private folder and merges the per-rank files)
 *   PERFEQ_ENABLE   "0" turns recording off at run time (hooks still run, nothing is written)
 *   PERFEQ_VERBOSE  "1" prints where the trace was written on stderr
 *   PERFEQ_MAX_CONTEXTS  stop recording (with a message) after this many contexts, a guard
 *                   against runaway call graphs (default: no limit)
 *
 * Task-time variability (trace version 2): the PMPI wrappers time every synchronising MPI call
 * (collectives and blocking point-to-point calls, runtime/mpi/calls.py) with CLOCK_MONOTONIC: the
 * compute burst before it (from the return of the thread's previous synchronising call, or of
 * MPI_Init, to this call's entry) and the time inside it, as count, sum, sum of squares, min, max
 * and a log2 histogram per MPI record.  Compiling the runtime with -DPERFEQ_NO_TIMES leaves the
 * clock out (no times are recorded; the header says "times": false).  OpenMP worksharing loops
 * record no chunk times: a thread's chunk ends inside the loop's implicit barrier, where no hook
 * can stand, and a clock read per iteration would cost more than the counters themselves.
 *
 * When the trace is written: the header line when recording starts (the first hook, or for MPI
 * programs MPI_Init, once the rank is known), everything else once, at MPI_Finalize (before
 * PMPI_Finalize), at exit() / return from main, or at perfeq_finish(); nothing is recorded after.
 * A crash leaves a trace without footer, which the reader reports as incomplete.
 *
 * Threads: contexts are per thread (thread-local stacks; a context belongs to the thread that
 * created it, so the plain macros never race).  Counters incremented inside an OpenMP parallel
 * region use the *_MT macros, which index a per-thread slab of the context's counters, allocated
 * at the thread's first use (no atomics, no false sharing); the trace sums the slabs.  A worker
 * thread that calls an instrumented function has no context of its own yet: its calls hang under
 * the context that last executed PERFEQ_REGION (the function holding the parallel region), as
 * contexts of that thread; the call graph merges the threads.
 *
 * Recursion: a function entered while it is already running on the thread re-enters that
 * ancestor context (flagged "recursive" in the trace), so contexts stay bounded.
 *
 * OpenMP worksharing loops (#pragma omp for) must keep their condition in canonical form, so
 * PERFEQ_ITER_MT cannot wrap it: count their iterations with PERFEQ_ITER_BODY_MT(k) at the top of
 * the body (slot k+1, like PERFEQ_ITER) and their exit with PERFEQ_BLOCK(k) before the pragma.
 */
#ifndef PERFEQ_RT_H
#define PERFEQ_RT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFEQ_ABI_VERSION 4

typedef unsigned long long perfeq_count_t;

/* Static description of one function of a unit (emitted by the instrumenter). */
typedef struct perfeq_func {
    const char *name;      /* the C name of the function */
    int nslots;            /* counters: blocks, loop entries/iterations, conditionals, regions... */
    int nvalues;           /* value slots: loop bounds, sizes, parameters recorded at run time */
    int leaf_slots;        /* counters after its own for the leaf functions it calls (perfeq_leaf_t) */
    int leaf_values;       /* value slots after its own for them */
} perfeq_func_t;

/* A call site of a leaf function (one that calls no function of the program, perfeq_rt.h's
 * PERFEQ_LEAF_*): the callee runs without a context of its own, counting into the caller's
 * context from `counts` (its calls, its context id plus one, then its nslots counters) and
 * `values` (its nvalues value slots) on; the trace shows it as the caller's child entered from
 * call site `site`. */
typedef struct perfeq_leaf {
    int caller;            /* the calling function (index in the unit's funcs) */
    int site;              /* its call site (the unit's call-site numbering) */
    int callee;            /* the leaf function (index in funcs; -1: it was not instrumented) */
    int counts, values;    /* first counter and value slot in the caller's context */
} perfeq_leaf_t;

/* Static description of one instrumented translation unit (one per instrumented .c file). */
typedef struct perfeq_unit {
    int abi_version;              /* PERFEQ_ABI_VERSION when instrumented */
    const char *source;           /* the original source path, as given to the instrumenter */
    const char *descriptors;      /* absolute path of the unit's descriptor JSON */
    const char *digest;           /* sha256 of the original source text (hex) */
    int nfuncs;
    const perfeq_func_t *funcs;
    int nleaves;
    const perfeq_leaf_t *leaves;  /* its call sites of leaf functions */
    struct perfeq_unit *next;     /* runtime use: list of registered units */
    int registered;               /* runtime use */
} perfeq_unit_t;

/* Statistics of one value slot in one context. */
typedef struct perfeq_value_stat {
    perfeq_count_t n;
    double first, last, min, max, sum;
} perfeq_value_stat_t;

/* The first members of every context, the only ones instrumented code reads or writes (the rest is
 * the library's): its counter array, what the inline entry (perfeq__enter_inline) needs to enter
 * a child entered before again without a library call, and its value slots (recorded inline by the
 * thread that owns the context, perfeq__value_inline).  The children entered last are kept one per
 * way of PERFEQ__HIT(site), so that a loop calling a few functions in turn (XSBench's lookup
 * loop: fast_forward_LCG, pick_mat, calculate_macro_xs) enters each inline: with one entry, the
 * child entered last, every call of such a loop missed and went through the library. */
#define PERFEQ_HITS 4
#define PERFEQ__HIT(site) ((unsigned)(site) & (PERFEQ_HITS - 1))
typedef struct perfeq_ctx_head {
    perfeq_count_t *counts;
    struct perfeq_ctx *hits[PERFEQ_HITS]; /* children entered last, by PERFEQ__HIT(site) (or NULL) */
    struct perfeq_unit *unit;           /* the function's unit and index (unit NULL: no function) */
    struct perfeq_unit *caller_unit;    /* the call site it was entered from (NULL, -1: unknown) */
    int func;
    int site;
    int alias;                          /* a recursive call: the library enters an ancestor */
    perfeq_count_t calls;               /* entries */
    perfeq_value_stat_t *values;        /* nvalues value slots */
    int nvalues;
} perfeq_ctx_head_t;

/* One call-graph context: a function entered from a call site (in its parent's context). */
typedef struct perfeq_ctx perfeq_ctx_t;

/* ---- the thread's call state, shared with the inline hooks ---------------------------------- */

/* A call announced by PERFEQ_CALLED and not yet entered: from `unit`'s call site `site`, in the
 * frame at `depth`, to the function named `callee` (NULL: through a function pointer). */
typedef struct perfeq_call_note {
    perfeq_unit_t *unit;
    int site;
    int depth;
    const char *callee;
} perfeq_call_note_t;

#define PERFEQ_PENDING_CALLS 16

/* The part of a thread's state the inline hooks below read and write on the common path (an
 * announcement with nothing to drop, a return from the innermost context with nothing pending);
 * everything else goes through the library, which owns the rest. */
typedef struct perfeq_calls {
    int depth, capacity;          /* contexts open on this thread, `stack[depth - 1]` the innermost */
    perfeq_ctx_t **stack;
    int ncalls;                   /* announcements pending, newest last, their depths non-decreasing */
    perfeq_call_note_t calls[PERFEQ_PENDING_CALLS];
    const perfeq_leaf_t *leaf;    /* a leaf call announced and not yet entered (PERFEQ_LEAF_CALLED) */
    const struct perfeq_unit *leaf_unit;
    perfeq_ctx_t *leaf_ctx;       /* the caller's context */
    perfeq_ctx_t *mt_ctx;         /* the context of the last slab lookup (perfeq_counts_mt) */
    perfeq_count_t *mt_counts;    /* and this thread's slab of its counters */
} perfeq_calls_t;

#if defined(__GNUC__) || defined(__clang__)
extern __thread perfeq_calls_t *perfeq_calls_self; /* NULL until the thread's first hook */
#else
extern _Thread_local perfeq_calls_t *perfeq_calls_self;
#endif
extern volatile int perfeq_recording;             /* 1 while the library records */

#if defined(__GNUC__) || defined(__clang__)
#define PERFEQ__INLINE static __inline__
#else
#define PERFEQ__INLINE static inline
#endif
/* floor(sqrt(x)), -1 for x < 0, in integers (no libm): the bound of a loop ``v * v <= x`` that the
 * instrumenter writes as ``v <= perfeq_isqrt(x)`` (evaluated once per entry of the loop). */
PERFEQ__INLINE long long perfeq_isqrt(long long x)
{
    unsigned long long r = 0, bit = 1ULL << 62, v = (unsigned long long)x;
    if (x < 0)
        return -1;
    while (bit > v)
        bit >>= 2;
    while (bit) {
        if (v >= r + bit) {
            v -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return (long long)r;
}
/* The announcement on top (in the current frame) is for a function named `name`: it names it, or it
 * is a call through a pointer (no name) and the frame's only one pending, so that no announcement
 * below it names the function (the library's search would take that one first). */
PERFEQ__INLINE int perfeq__names(const perfeq_calls_t *h, const perfeq_call_note_t *call, const char *name)
{
    return call->callee == name
           || (!call->callee && (h->ncalls == 1 || h->calls[h->ncalls - 2].depth < h->depth));
}

/* ---- the functions the macros call (library API) ------------------------------------------- */

/* Register `unit` when the program is loaded (a constructor, PERFEQ_REGISTER_UNIT), so that the
 * trace lists it even if none of its functions is ever entered: its straight-line functions have no
 * hooks, and calls to them from other units take their operations from its descriptors. */
void perfeq_register_unit(perfeq_unit_t *unit);
/* Enter function `func` of `unit`.  The call site is the one announced by perfeq_call_site() just
 * before the call (if it names this function), else "unknown" (-1).  Returns the context, never
 * NULL (when recording is off, a scratch context is returned). */
perfeq_ctx_t *perfeq_enter(perfeq_unit_t *unit, int func);
/* Leave the context entered last on this thread (called through a cleanup guard). */
void perfeq_leave(perfeq_ctx_t *ctx);
void perfeq_leave_guard(perfeq_ctx_t **ctx);
/* The counter array of a context (nslots counters). */
perfeq_count_t *perfeq_counts(perfeq_ctx_t *ctx);
/* Per-thread slab (nslots counters) of `ctx` for *_MT counters inside OpenMP parallel regions; the
 * thread that owns `ctx` gets its counter array itself. */
perfeq_count_t *perfeq_counts_mt(perfeq_ctx_t *ctx);
/* This thread's slab of a context's counters inside a parallel construct: the last lookup's, inline
 * (an `omp parallel for` body declares it at every iteration), else the library's lookup. */
PERFEQ__INLINE perfeq_count_t *perfeq__counts_mt(perfeq_ctx_t *x)
{
    perfeq_calls_t *h = perfeq_calls_self;
    if (__builtin_expect(h && x && h->mt_ctx == x, 1))
        return h->mt_counts;
    return perfeq_counts_mt(x);
}
/* Announce the next user-function call: from `unit`'s call site `site` to the function named `callee`
 * (a string literal from the unit's table; compared by pointer first, then by content; NULL for a
 * call through a function pointer, which matches whichever instrumented function is entered next).
 * Announcements wait until the callee is entered from the announcing function, so calls in the
 * arguments of a call (f(g(x))) are attributed correctly. */
void perfeq_call_site(perfeq_unit_t *unit, int site, const char *callee);
/* Announce the next MPI call: MPI call site `site` of `unit` in context `ctx` (read by the PMPI
 * wrappers, then cleared). */
void perfeq_mpi_site(perfeq_ctx_t *ctx, int site);
/* The first call from leaf call site `leaf` in `ctx`: the leaf function's context id, taken now so
 * that the trace lists contexts in the order they were first entered, as without leaf calls. */
void perfeq_leaf_first(perfeq_ctx_t *ctx, const perfeq_leaf_t *leaf);
/* Scratch counters for leaf call site k's twin when there is no caller context to count into. */
perfeq_count_t *perfeq_twin_scratch(const perfeq_unit_t *unit, int k);
/* Record a value (loop bound at entry, allocation size, parameter) in value slot `slot` of `ctx`. */
void perfeq_value(perfeq_ctx_t *ctx, int slot, double value);
/* Record an allocation size and return it unchanged (wraps malloc/calloc/realloc size arguments). */
size_t perfeq_size(perfeq_ctx_t *ctx, int slot, size_t bytes);
/* Count an entry into an OpenMP parallel region in slot `slot` of `ctx`, and make `ctx` the base
 * context of worker threads (see "Threads" above). */
void perfeq_region(perfeq_ctx_t *ctx, int slot);
void perfeq_region_team(perfeq_ctx_t *ctx, int slot);
/* Record a problem-size parameter by name (global, not per context). */
void perfeq_param(const char *name, double value);
/* Write the trace now (also done automatically at MPI_Finalize and at exit). */
void perfeq_finish(void);

/* Record a value in serial code (the instrumenter records values only outside parallel constructs).
 * Contexts are per thread, so the thread running a function's serial code is the only one writing
 * its context's values: no lock, no call.  A hook inside a parallel construct, where worker threads
 * write their master's context, must be PERFEQ_VALUE_MT (the locked library call perfeq_value).
 * Anything unusual (not recording, a scratch context, a slot out of range) is the library's. */
PERFEQ__INLINE void perfeq__value_add(perfeq_value_stat_t *v, double value)
{
    if (v->n == 0) {
        v->first = v->min = v->max = value;
    } else {
        if (value < v->min)
            v->min = value;
        if (value > v->max)
            v->max = value;
    }
    v->last = value;
    v->sum += value;
    v->n++;
}
PERFEQ__INLINE void perfeq__value_inline(perfeq_ctx_t *ctx, int slot, double value)
{
    perfeq_ctx_head_t *c = (perfeq_ctx_head_t *)ctx;
    if (!perfeq_recording || !c || !c->unit || slot < 0 || slot >= c->nvalues) {
        perfeq_value(ctx, slot, value);
        return;
    }
    perfeq__value_add(&c->values[slot], value);
}
PERFEQ__INLINE size_t perfeq__size_inline(perfeq_ctx_t *ctx, int slot, size_t bytes)
{
    perfeq__value_inline(ctx, slot, (double)bytes);
    return bytes;
}

/* ---- the macros the instrumenter inserts --------------------------------------------------- */
#ifndef PERFEQ_OFF

/* After the unit's table: register it at load time (see perfeq_register_unit). */
#if defined(__GNUC__) || defined(__clang__)
#define PERFEQ_REGISTER_UNIT(unit)                                                               \
    __attribute__((constructor)) static void perfeq__register_at_load(void)                      \
    {                                                                                            \
        perfeq_register_unit(&(unit));                                                           \
    }
#endif

/* At the start of every instrumented function body. */
#if defined(__GNUC__) || defined(__clang__)
/* No announcement of the innermost frame or a deeper (gone) one is pending: nothing to drop. */
static __inline__ int perfeq__none_pending(const perfeq_calls_t *h)
{
    return h->ncalls == 0 || h->calls[h->ncalls - 1].depth < h->depth;
}
/* Leaving the function (its cleanup): the innermost context, with nothing pending, is popped here;
 * anything else is the library's (perfeq_leave). */
static __inline__ void perfeq__leave_inline(perfeq_ctx_t **ctx)
{
    perfeq_calls_t *h = perfeq_calls_self;
    if (h && perfeq_recording && h->depth > 0 && h->stack[h->depth - 1] == *ctx && perfeq__none_pending(h))
        h->depth--;
    else
        perfeq_leave_guard(ctx);
}
/* Announcing a call: pushed here when nothing is pending (nothing to drop or replace) and there is
 * room; anything else is the library's (perfeq_call_site). */
static __inline__ void perfeq__announce(perfeq_unit_t *unit, int site, const char *callee)
{
    perfeq_calls_t *h = perfeq_calls_self;
    if (h && perfeq_recording && h->ncalls < PERFEQ_PENDING_CALLS && perfeq__none_pending(h)) {
        perfeq_call_note_t *note = &h->calls[h->ncalls++];
        note->unit = unit;
        note->site = site;
        note->depth = h->depth;
        note->callee = callee;
    } else {
        perfeq_call_site(unit, site, callee);
    }
}
/* Nothing announced in the innermost frame names the function `name` or is a call through a pointer,
 * so that the library takes its entry as one from an unknown site (perfeq__take_call), leaving the
 * announcements pending: that frame announced nothing, or a call of a function without hooks (a
 * straight-line function of another unit), which nothing consumes.  (XSBench sorts with qsort and a
 * comparator after announcing calls of another file's straight-line LCG_random_double: every
 * comparison entered through the library.) */
static __inline__ int perfeq__unnamed(const perfeq_calls_t *h, const char *name)
{
    int i;
    if (!name)
        return 0;
    for (i = h->ncalls - 1; i >= 0 && h->calls[i].depth == h->depth; i--) {
        const char *callee = h->calls[i].callee;
        if (!callee || callee == name || (callee[0] == name[0] && __builtin_strcmp(callee, name) == 0))
            return 0;
    }
    return 1;
}
/* Entering a function: when the caller's context entered this function's context from the call
 * site announced now (or, with nothing announced in the caller's frame, from an unknown site: a
 * callback from a library) the last time it entered a child from a site of that way (PERFEQ__HIT),
 * it is pushed here; anything else is the library's (perfeq_enter: its cache of recent contexts,
 * recursive calls, the first call).  A tiny function called millions of times (a comparator, a
 * message handler) then costs a few loads and compares on entry, not a call.  The name is the unit
 * table's own string, as in the announcement. */
static __inline__ perfeq_ctx_t *perfeq__enter_inline(perfeq_unit_t *unit, int func)
{
    perfeq_calls_t *h = perfeq_calls_self;
    perfeq_ctx_head_t *c;
    if (h && perfeq_recording && h->depth > 0 && h->depth < h->capacity) {
        const perfeq_call_note_t *call = h->ncalls > 0 ? &h->calls[h->ncalls - 1] : 0;
        const perfeq_ctx_head_t *parent = (const perfeq_ctx_head_t *)h->stack[h->depth - 1];
        if (!call || call->depth < h->depth) /* nothing announced in the caller's frame */
            goto unknown;
        if (call->depth == h->depth) {
            if (perfeq__names(h, call, unit->funcs[func].name)) {
                c = (perfeq_ctx_head_t *)parent->hits[PERFEQ__HIT(call->site)];
                if (c && c->unit == unit && c->func == func && !c->alias && call->unit == c->caller_unit
                    && call->site == c->site) {
                    h->ncalls--;
                    goto hit;
                }
            } else if (perfeq__unnamed(h, unit->funcs[func].name)) {
                goto unknown;
            }
        }
    }
    return perfeq_enter(unit, func);
unknown: /* from an unknown site: a callback from a library */
    c = (perfeq_ctx_head_t *)((perfeq_ctx_head_t *)h->stack[h->depth - 1])->hits[PERFEQ__HIT(-1)];
    if (c && c->unit == unit && c->func == func && !c->alias && !c->caller_unit && c->site == -1)
        goto hit;
    return perfeq_enter(unit, func);
hit:
    h->stack[h->depth++] = (perfeq_ctx_t *)c;
    c->calls++;
    return (perfeq_ctx_t *)c;
}
/* Calling leaf function k of the unit's table (PERFEQ_LEAF_CALLED): the next leaf entered on this
 * thread counts into the caller's context `ctx`, if it is that callee. */
static __inline__ void perfeq__leaf_call(const perfeq_unit_t *unit, int k, perfeq_ctx_t *ctx)
{
    perfeq_calls_t *h = perfeq_calls_self;
    if (h) {
        h->leaf = &unit->leaves[k];
        h->leaf_unit = unit;
        h->leaf_ctx = ctx;
    }
}
/* Entering a leaf function: called from an announced leaf call site of its unit while recording,
 * its counters and values are the caller context's slots for that site (no context, nothing pushed:
 * *x is NULL); otherwise (another unit's call, a call through a pointer, a call in a parallel
 * construct) it enters a context of its own as any function does. */
static __inline__ perfeq_count_t *perfeq__enter_leaf(perfeq_unit_t *unit, int func, perfeq_ctx_t **x,
                                                     perfeq_value_stat_t **values)
{
    perfeq_calls_t *h = perfeq_calls_self;
    const perfeq_leaf_t *l;
    if (h && (l = h->leaf) != 0) {
        perfeq_ctx_head_t *c = (perfeq_ctx_head_t *)h->leaf_ctx;
        h->leaf = 0;
        if (h->leaf_unit == unit && l->callee == func && perfeq_recording && c->unit == unit
            && c->func == l->caller) {
            *x = 0;
            *values = c->values + l->values;
            if (!c->counts[l->counts]++)
                perfeq_leaf_first(h->leaf_ctx, l);
            return c->counts + l->counts + 2;
        }
    }
    *values = 0;
    *x = perfeq__enter_inline(unit, func);
    return ((perfeq_ctx_head_t *)*x)->counts;
}
static __inline__ void perfeq__leave_leaf(perfeq_ctx_t **ctx)
{
    if (*ctx)
        perfeq__leave_inline(ctx);
}
#define PERFEQ_FUNC_BEGIN(unit, func)                                                            \
    perfeq_ctx_t *perfeq__x __attribute__((cleanup(perfeq__leave_inline))) =                     \
        perfeq__enter_inline(&(unit), (func));                                                   \
    perfeq_count_t *perfeq__c __attribute__((unused)) = ((perfeq_ctx_head_t *)perfeq__x)->counts;
/* At the start of a leaf function's body (one that calls no function of the program). */
#define PERFEQ_LEAF_BEGIN(unit, func)                                                            \
    perfeq_value_stat_t *perfeq__lv __attribute__((unused));                                     \
    perfeq_ctx_t *perfeq__x __attribute__((cleanup(perfeq__leave_leaf))) = 0;                   \
    perfeq_count_t *perfeq__c __attribute__((unused)) =                                          \
        perfeq__enter_leaf(&(unit), (func), &perfeq__x, &perfeq__lv);
#else
#error "perfeq: the instrumented source needs a compiler with __attribute__((cleanup)) (GCC, Clang, Intel, NVHPC)"
#endif

#define PERFEQ_BLOCK(k)         (perfeq__c[(k)]++)
#define PERFEQ_BLOCK_MT(k)      (perfeq__counts_mt(perfeq__x)[(k)]++)
/* Loop condition: slot k counts exits (false), slot k+1 iterations (true). */
#define PERFEQ_ITER(k, cond)    ((cond) ? (perfeq__c[(k) + 1]++, 1) : (perfeq__c[(k)]++, 0))
#define PERFEQ_ITER_MT(k, cond) ((cond) ? (perfeq__counts_mt(perfeq__x)[(k) + 1]++, 1)          \
                                        : (perfeq__counts_mt(perfeq__x)[(k)]++, 0))
/* Empty loop condition (for (;;)): counts iterations only. */
#define PERFEQ_ITER_ALWAYS(k)   (perfeq__c[(k) + 1]++, 1)
/* A condition's two outcomes: slot k counts false, slot k+1 true evaluations.  The instrumenter no
 * longer emits it (a ?: is counted with both arms, so nothing read its slots, and the counter kept an
 * innermost ?: from becoming a conditional move: PolyBench floyd-warshall 3.1x slower); kept for
 * sources instrumented before and for hand-written hooks. */
#define PERFEQ_COND(k, cond)    PERFEQ_ITER(k, cond)
#define PERFEQ_COND_MT(k, cond) PERFEQ_ITER_MT(k, cond)
/* Condition of an if: a two-level branch predictor with local history (Yeh & Patt) per
 * conditional and context tells a data-dependent branch that flips at random from one whose
 * outcomes come in runs or short patterns (merging already sorted data), which predictors learn.
 * Slots: k counts its mispredictions, k+1 holds its last PERFEQ_BRANCH_HISTORY outcomes, k+2 on
 * one 2-bit saturating counter per history (taken predicted at 2 and 3); only slot k is a count
 * (the trace sums every slot over thread slabs, and readers ignore the others). */
#define PERFEQ_BRANCH_HISTORY 4
#define PERFEQ_BRANCH_SLOTS   (2 + (1 << PERFEQ_BRANCH_HISTORY))
static __inline__ void perfeq__branch_update(perfeq_count_t *s, int taken)
{
    /* branch-free, so that the hook does not add mispredictions of its own */
    perfeq_count_t history = s[1] & ((1u << PERFEQ_BRANCH_HISTORY) - 1);
    perfeq_count_t outcome = (perfeq_count_t)(taken != 0);
    perfeq_count_t *counter = s + 2 + history;
    perfeq_count_t state = *counter;
    s[0] += (state >> 1) != outcome; /* predicted taken at 2 and 3 */
    *counter = state + (outcome & (state < 3)) - ((outcome ^ 1) & (state > 0));
    s[1] = ((history << 1) | outcome) & ((1u << PERFEQ_BRANCH_HISTORY) - 1);
}
/* A branch in a steady state, its history all one outcome and that history's counter saturated
 * towards it, stays there without a misprediction when the outcome comes again: the update is
 * skipped: one or two loads and a compare instead of a chain of loads and stores through the slots
 * (CoMD's pair loop, whose cut-off test mostly goes one way: the instrumented run 2.4x -> 1.5x the
 * plain one).  Exact: nothing it skips changes a slot. */
#define PERFEQ__STEADY_TAKEN ((1u << PERFEQ_BRANCH_HISTORY) - 1)
static __inline__ int perfeq__branch(perfeq_count_t *s, int taken)
{
    int t = taken != 0;
    if (__builtin_expect(s[1] == (t ? PERFEQ__STEADY_TAKEN : 0u) && s[2 + (t ? PERFEQ__STEADY_TAKEN : 0)] == (t ? 3u : 0u), 1))
        return taken;
    perfeq__branch_update(s, t);
    return taken;
}
/* The exit test of a loop no break, return or goto leaves, told to its predictor once per entry,
 * at the exit, instead of at every test (the per-test update chains each iteration through memory:
 * 2-3x on a short sparse-row loop): ``n`` taken outcomes (the iterations of this entry) and one not
 * taken, as the tests had them.  Exact, not an estimate: after PERFEQ_BRANCH_HISTORY taken
 * outcomes the history is all taken, and after 3 more its 2-bit counter is saturated, so the later
 * taken outcomes change nothing and mispredict nothing. */
static __inline__ void perfeq__branch_run(perfeq_count_t *s, perfeq_count_t n, int taken)
{
    perfeq_count_t i, m = n < PERFEQ_BRANCH_HISTORY + 3 ? n : PERFEQ_BRANCH_HISTORY + 3;
    for (i = 0; i < m; i++)
        perfeq__branch(s, taken);
}
static __inline__ void perfeq__exit_branch(perfeq_count_t *s, perfeq_count_t n)
{
    perfeq__branch_run(s, n, 1);
    perfeq__branch(s, 0);
}
/* Around such a loop: v holds its body counter (slot b) at entry; p is the predictor's first slot. */
#define PERFEQ_EXIT_DECL(v)             perfeq_count_t v;
#define PERFEQ_EXIT_START(v, b)         ((v) = perfeq__c[(b)])
#define PERFEQ_EXIT_START_L(v, b)       ((v) = perfeq__cm[(b)])
#define PERFEQ_EXIT_START_MT(v, b)      ((v) = perfeq__counts_mt(perfeq__x)[(b)])
#define PERFEQ_EXIT_BRANCH(p, b, v)     perfeq__exit_branch(perfeq__c + (p), perfeq__c[(b)] - (v))
#define PERFEQ_EXIT_BRANCH_L(p, b, v)   perfeq__exit_branch(perfeq__cm + (p), perfeq__cm[(b)] - (v))
#define PERFEQ_EXIT_BRANCH_MT(p, b, v)  perfeq__exit_branch(perfeq__counts_mt(perfeq__x) + (p),         \
                                                            perfeq__counts_mt(perfeq__x)[(b)] - (v))
/* The if by which a search loop leaves early (``if (cdf[i] >= u) break;`` or ``return i;``, the
 * loop's only early exit, tested once per iteration): its tests told to its predictor once per
 * entry, when it is taken (the entry's earlier tests not taken, then this one) or at the loop's exit
 * (every test of the entry not taken), instead of at every test (Rodinia particlefilter's CDF
 * search: 2.6x the plain run with the per-test update).  Exact as perfeq__exit_branch is: after
 * PERFEQ_BRANCH_HISTORY + 3 outcomes alike the predictor's state no longer changes. */
static __inline__ void perfeq__guard_branch(perfeq_count_t *s, perfeq_count_t n, int taken)
{
    perfeq__branch_run(s, n, 0);
    if (taken)
        perfeq__branch(s, 1);
}
/* v holds the body counter (slot b) at entry (PERFEQ_EXIT_DECL, PERFEQ_EXIT_START); when the guard
 * is taken it is moved on, so that the exit's telling after a break tells nothing more. */
#define PERFEQ_GUARD_TAKEN(p, b, v)     (perfeq__guard_branch(perfeq__c + (p), perfeq__c[(b)] - (v) - 1, 1),      \
                                         (v) = perfeq__c[(b)])
#define PERFEQ_GUARD_TAKEN_L(p, b, v)   (perfeq__guard_branch(perfeq__cm + (p), perfeq__cm[(b)] - (v) - 1, 1),    \
                                         (v) = perfeq__cm[(b)])
#define PERFEQ_GUARD_TAKEN_MT(p, b, v)  (perfeq__guard_branch(perfeq__counts_mt(perfeq__x) + (p),                   \
                                                              perfeq__counts_mt(perfeq__x)[(b)] - (v) - 1, 1),      \
                                         (v) = perfeq__counts_mt(perfeq__x)[(b)])
#define PERFEQ_GUARD_EXIT(p, b, v)      perfeq__guard_branch(perfeq__c + (p), perfeq__c[(b)] - (v), 0)
#define PERFEQ_GUARD_EXIT_L(p, b, v)    perfeq__guard_branch(perfeq__cm + (p), perfeq__cm[(b)] - (v), 0)
#define PERFEQ_GUARD_EXIT_MT(p, b, v)   perfeq__guard_branch(perfeq__counts_mt(perfeq__x) + (p),                    \
                                                             perfeq__counts_mt(perfeq__x)[(b)] - (v), 0)
/* The condition of an if compilers turn into conditional moves (its arms assign locals): slot k
 * counts its then block, slot e its else block, without a branch, so that the arms stay moves. */
static __inline__ int perfeq__taken(perfeq_count_t *s, int taken)
{
    *s += (perfeq_count_t)taken;
    return taken;
}
static __inline__ int perfeq__either(perfeq_count_t *c, int k, int e, int taken)
{
    c[k] += (perfeq_count_t)taken;
    c[e] += (perfeq_count_t)(taken ^ 1);
    return taken;
}
#define PERFEQ_TAKEN(k, cond)        perfeq__taken(perfeq__c + (k), (cond) ? 1 : 0)
#define PERFEQ_TAKEN_L(k, cond)      perfeq__taken(perfeq__cm + (k), (cond) ? 1 : 0)
#define PERFEQ_TAKEN_MT(k, cond)     perfeq__taken(perfeq__counts_mt(perfeq__x) + (k), (cond) ? 1 : 0)
#define PERFEQ_EITHER(k, e, cond)    perfeq__either(perfeq__c, (k), (e), (cond) ? 1 : 0)
#define PERFEQ_EITHER_L(k, e, cond)  perfeq__either(perfeq__cm, (k), (e), (cond) ? 1 : 0)
#define PERFEQ_EITHER_MT(k, e, cond) perfeq__either(perfeq__counts_mt(perfeq__x), (k), (e), (cond) ? 1 : 0)
#define PERFEQ_BRANCH(k, cond)    perfeq__branch(perfeq__c + (k), (cond) ? 1 : 0)
#define PERFEQ_BRANCH_MT(k, cond) perfeq__branch(perfeq__counts_mt(perfeq__x) + (k), (cond) ? 1 : 0)
/* Statement hooks. */
#define PERFEQ_LOOP_ENTER(k)    (perfeq__c[(k)]++)
/* Iterations of a counted loop added once at its entry, from its bounds (first value a, bound b,
 * step s > 0): for loops whose variable, bound and exits the body leaves alone, so the body needs
 * no counter of its own.  LT: for (v = a; v < b; v += s); LE: v <= b; GT/GE: v -= s. */
#define PERFEQ__SPAN(lo, hi)    ((long long)(hi) - (long long)(lo))
#define PERFEQ__UP(lo, hi, s)   (PERFEQ__SPAN(lo, hi) > 0 ? (perfeq_count_t)((PERFEQ__SPAN(lo, hi) + (s) - 1) / (s)) : 0)
#define PERFEQ__UPTO(lo, hi, s) (PERFEQ__SPAN(lo, hi) >= 0 ? (perfeq_count_t)(PERFEQ__SPAN(lo, hi) / (s) + 1) : 0)
#define PERFEQ_TRIPS_LT(k, a, b, s) (perfeq__c[(k)] += PERFEQ__UP(a, b, s))
#define PERFEQ_TRIPS_LE(k, a, b, s) (perfeq__c[(k)] += PERFEQ__UPTO(a, b, s))
#define PERFEQ_TRIPS_GT(k, a, b, s) (perfeq__c[(k)] += PERFEQ__UP(b, a, s))
#define PERFEQ_TRIPS_GE(k, a, b, s) (perfeq__c[(k)] += PERFEQ__UPTO(b, a, s))
/* Inside an OpenMP parallel body: the thread's slab of the context's counters, looked up once at
 * the top of the body (PERFEQ_MT_LOCAL declares it), then plain increments (the *_L macros). */
#define PERFEQ_MT_LOCAL         perfeq_count_t *perfeq__cm = perfeq__counts_mt(perfeq__x);
#define PERFEQ_BLOCK_L(k)       (perfeq__cm[(k)]++)
#define PERFEQ_COND_L(k, cond)  ((cond) ? (perfeq__cm[(k) + 1]++, 1) : (perfeq__cm[(k)]++, 0))
#define PERFEQ_BRANCH_L(k, cond) perfeq__branch(perfeq__cm + (k), (cond) ? 1 : 0)
#define PERFEQ_REGION_L(k)      ((void)0)
#define PERFEQ_TRIPS_LT_L(k, a, b, s) (perfeq__cm[(k)] += PERFEQ__UP(a, b, s))
#define PERFEQ_TRIPS_LE_L(k, a, b, s) (perfeq__cm[(k)] += PERFEQ__UPTO(a, b, s))
#define PERFEQ_TRIPS_GT_L(k, a, b, s) (perfeq__cm[(k)] += PERFEQ__UP(b, a, s))
#define PERFEQ_TRIPS_GE_L(k, a, b, s) (perfeq__cm[(k)] += PERFEQ__UPTO(b, a, s))
/* Values (loop bounds at entry, sizes): in serial code; _MT inside a parallel construct. */
#define PERFEQ_VALUE(v, x)      perfeq__value_inline(perfeq__x, (v), (double)(x))
#define PERFEQ_VALUE_MT(v, x)   perfeq_value(perfeq__x, (v), (double)(x))
/* In a leaf function: into the caller's slots, or its own context's when it has one. */
#define PERFEQ_LEAF_VALUE(v, x)                                                                  \
    (perfeq__lv ? perfeq__value_add(perfeq__lv + (v), (double)(x)) : PERFEQ_VALUE(v, x))
#define PERFEQ_SIZE(v, x)       perfeq__size_inline(perfeq__x, (v), (size_t)(x))
#define PERFEQ_PARAM(name, x)   perfeq_param((name), (double)(x))
#define PERFEQ_REGION(k)        perfeq_region(perfeq__x, (k))
/* Before a construct without num_threads or if clauses: its team is omp_get_max_threads(). */
#define PERFEQ_REGION_TEAM(k)   perfeq_region_team(perfeq__x, (k))
/* Iteration of an OpenMP worksharing loop, at the top of its body: slot k+1 (see above). */
#define PERFEQ_ITER_BODY_MT(k)  (perfeq__counts_mt(perfeq__x)[(k) + 1]++)
/* Expression prefixes: PERFEQ_CALL(unit, site, "callee") , f(args)  (always inside parentheses). */
#define PERFEQ_CALL(unit, site, callee) perfeq_call_site(&(unit), (site), (callee))
/* A whole user-function call: the announcement and the call evaluated as one unit (a GNU
 * statement expression), so that two calls in one expression (f(a) + f(b)) cannot interleave
 * their announcements; the callee's arguments are evaluated after the announcement, and calls
 * among them announce and consume their own (the runtime keeps a stack). */
#define PERFEQ_CALLED(unit, site, callee, call)                                                   \
    __extension__({ perfeq__announce(&(unit), (site), (callee)); call; })
/* A call of a leaf function of this unit from serial code: entry k of the unit's leaf table.  With
 * -DPERFEQ_NO_LEAVES it is announced as any call (the leaf then enters a context of its own): the
 * same trace, slower. */
#ifndef PERFEQ_NO_LEAVES
#define PERFEQ_LEAF_CALLED(unit, k, call)                                                         \
    __extension__({ perfeq__leaf_call(&(unit), (k), perfeq__x); call; })
#else
/* leaf call site k announced as any call site of its callee */
#define PERFEQ__ANNOUNCE_LEAF(unit, k)                                                            \
    perfeq__announce(&(unit), (unit).leaves[k].site,                                              \
                     (unit).leaves[k].callee < 0 ? 0 : (unit).funcs[(unit).leaves[k].callee].name)
#define PERFEQ_LEAF_CALLED(unit, k, call) __extension__({ PERFEQ__ANNOUNCE_LEAF(unit, k); call; })
#endif
/* A leaf call site calling the leaf's twin: perfeq cc emits, after a leaf function f of the unit
 * (no static locals, no __func__), a static copy perfeq__twin__f whose first two parameters are the
 * caller's slots for the site (perfeq__c, perfeq__lv), so that the call needs no announcement and
 * the compiler can inline it:  PERFEQ_LEAF_TWIN(unit, k, f)(PERFEQ_LEAF_ARGS(unit, k) args).  The
 * same counts as PERFEQ_LEAF_CALLED; without a context of the caller to count into (not recording)
 * into scratch slots.  -DPERFEQ_NO_LEAVES (PERFEQ__TWINS 0) calls f, announced. */
#ifndef PERFEQ_NO_LEAVES
#define PERFEQ__TWINS 1
static __inline__ int perfeq__twin_ok(const perfeq_unit_t *unit, int k, perfeq_ctx_t *x)
{
    const perfeq_ctx_head_t *c = (const perfeq_ctx_head_t *)x;
    return perfeq_recording && c && c->unit == unit && c->func == unit->leaves[k].caller
        && unit->leaves[k].callee >= 0;
}
/* The site's slots in the caller's context x: its own counters (team 0), or in a parallel construct
 * (leaves that record no values only) the calling thread's slab, ``slab`` (perfeq__cm, or NULL:
 * looked up). */
static __inline__ perfeq_count_t *perfeq__twin_counts(perfeq_unit_t *unit, int k, perfeq_ctx_t *x, int team,
                                                      perfeq_count_t *slab)
{
    const perfeq_leaf_t *l = &unit->leaves[k];
    perfeq_count_t *counts;
    if (__builtin_expect(!perfeq__twin_ok(unit, k, x), 0))
        return perfeq_twin_scratch(unit, k);
    counts = !team ? ((perfeq_ctx_head_t *)x)->counts : slab ? slab : perfeq_counts_mt(x);
    if (!counts[l->counts]++)
        perfeq_leaf_first(x, l);
    return counts + l->counts + 2;
}
static __inline__ perfeq_value_stat_t *perfeq__twin_values(perfeq_unit_t *unit, int k, perfeq_ctx_t *x)
{
    return perfeq__twin_ok(unit, k, x) ? ((perfeq_ctx_head_t *)x)->values + unit->leaves[k].values : 0;
}
#define PERFEQ_LEAF_TWIN(unit, k, f) perfeq__twin__##f
#define PERFEQ_LEAF_ARGS(unit, k)                                                                 \
    perfeq__twin_counts(&(unit), (k), perfeq__x, 0, 0), perfeq__twin_values(&(unit), (k), perfeq__x),
#define PERFEQ_LEAF_ARGS0(unit, k)                                                                \
    perfeq__twin_counts(&(unit), (k), perfeq__x, 0, 0), perfeq__twin_values(&(unit), (k), perfeq__x)
#define PERFEQ_LEAF_ARGS_L(unit, k)  perfeq__twin_counts(&(unit), (k), perfeq__x, 1, perfeq__cm), 0,
#define PERFEQ_LEAF_ARGS0_L(unit, k) perfeq__twin_counts(&(unit), (k), perfeq__x, 1, perfeq__cm), 0
#define PERFEQ_LEAF_ARGS_MT(unit, k)  perfeq__twin_counts(&(unit), (k), perfeq__x, 1, 0), 0,
#define PERFEQ_LEAF_ARGS0_MT(unit, k) perfeq__twin_counts(&(unit), (k), perfeq__x, 1, 0), 0
#else
#define PERFEQ__TWINS 0
#define PERFEQ_LEAF_TWIN(unit, k, f) (PERFEQ__ANNOUNCE_LEAF(unit, k), f)
#endif
#define PERFEQ_MPI(site)        perfeq_mpi_site(perfeq__x, (site))
/* Added after default(none) in an OpenMP construct: the variables the hooks use inside it. */
#define PERFEQ_SHARED           shared(perfeq__x, perfeq__unit)

#else /* PERFEQ_OFF: every hook is nothing, conditions stay as written */

/* A declaration (user declarations follow it) that uses the unit's table, so -Wunused-variable
 * stays quiet in the PERFEQ_OFF build. */
#if defined(__GNUC__) || defined(__clang__)
#define PERFEQ_FUNC_BEGIN(unit, func) perfeq_unit_t *perfeq__u __attribute__((unused)) = &(unit);
#else
#define PERFEQ_FUNC_BEGIN(unit, func)
#endif
#define PERFEQ_LEAF_BEGIN(unit, func) PERFEQ_FUNC_BEGIN(unit, func)
#define PERFEQ_REGISTER_UNIT(unit)
#define PERFEQ_BLOCK(k)         ((void)0)
#define PERFEQ_BLOCK_MT(k)      ((void)0)
#define PERFEQ_ITER(k, cond)    (cond)
#define PERFEQ_ITER_MT(k, cond) (cond)
#define PERFEQ_ITER_ALWAYS(k)   1
#define PERFEQ_COND(k, cond)    (cond)
#define PERFEQ_COND_MT(k, cond) (cond)
#define PERFEQ_BRANCH(k, cond)  (cond)
#define PERFEQ_TAKEN(k, cond)   (cond)
#define PERFEQ_TAKEN_L(k, cond) (cond)
#define PERFEQ_TAKEN_MT(k, cond) (cond)
#define PERFEQ_EITHER(k, e, cond) (cond)
#define PERFEQ_EITHER_L(k, e, cond) (cond)
#define PERFEQ_EITHER_MT(k, e, cond) (cond)
#define PERFEQ_BRANCH_MT(k, cond) (cond)
#define PERFEQ_EXIT_DECL(v)
#define PERFEQ_EXIT_START(v, b)         ((void)0)
#define PERFEQ_EXIT_START_L(v, b)       ((void)0)
#define PERFEQ_EXIT_START_MT(v, b)      ((void)0)
#define PERFEQ_EXIT_BRANCH(p, b, v)     ((void)0)
#define PERFEQ_EXIT_BRANCH_L(p, b, v)   ((void)0)
#define PERFEQ_EXIT_BRANCH_MT(p, b, v)  ((void)0)
#define PERFEQ_GUARD_TAKEN(p, b, v)     ((void)0)
#define PERFEQ_GUARD_TAKEN_L(p, b, v)   ((void)0)
#define PERFEQ_GUARD_TAKEN_MT(p, b, v)  ((void)0)
#define PERFEQ_GUARD_EXIT(p, b, v)      ((void)0)
#define PERFEQ_GUARD_EXIT_L(p, b, v)    ((void)0)
#define PERFEQ_GUARD_EXIT_MT(p, b, v)   ((void)0)
#define PERFEQ_LOOP_ENTER(k)    ((void)0)
#define PERFEQ_TRIPS_LT(k, a, b, s) ((void)0)
#define PERFEQ_TRIPS_LE(k, a, b, s) ((void)0)
#define PERFEQ_TRIPS_GT(k, a, b, s) ((void)0)
#define PERFEQ_TRIPS_GE(k, a, b, s) ((void)0)
#define PERFEQ_MT_LOCAL
#define PERFEQ_BLOCK_L(k)       ((void)0)
#define PERFEQ_COND_L(k, cond)  (cond)
#define PERFEQ_BRANCH_L(k, cond) (cond)
#define PERFEQ_REGION_L(k)      ((void)0)
#define PERFEQ_TRIPS_LT_L(k, a, b, s) ((void)0)
#define PERFEQ_TRIPS_LE_L(k, a, b, s) ((void)0)
#define PERFEQ_TRIPS_GT_L(k, a, b, s) ((void)0)
#define PERFEQ_TRIPS_GE_L(k, a, b, s) ((void)0)
#define PERFEQ_VALUE(v, x)      ((void)0)
#define PERFEQ_VALUE_MT(v, x)   ((void)0)
#define PERFEQ_LEAF_VALUE(v, x) ((void)0)
#define PERFEQ_SIZE(v, x)       (x)
#define PERFEQ_PARAM(name, x)   ((void)0)
#define PERFEQ_REGION(k)        ((void)0)
#define PERFEQ_REGION_TEAM(k)   ((void)0)
#define PERFEQ_ITER_BODY_MT(k)  ((void)0)
#define PERFEQ_CALL(unit, site, callee) ((void)0)
#define PERFEQ_CALLED(unit, site, callee, call) (call)
#define PERFEQ_LEAF_CALLED(unit, k, call) (call)
#define PERFEQ__TWINS 0
#define PERFEQ_LEAF_TWIN(unit, k, f) f
#define PERFEQ_MPI(site)        ((void)0)
#define PERFEQ_SHARED

#endif /* PERFEQ_OFF */

#if !PERFEQ__TWINS /* (PERFEQ_OFF, PERFEQ_NO_LEAVES) a leaf call site calls f: no slots before its arguments */
#define PERFEQ_LEAF_ARGS(unit, k)
#define PERFEQ_LEAF_ARGS0(unit, k)
#define PERFEQ_LEAF_ARGS_L(unit, k)
#define PERFEQ_LEAF_ARGS0_L(unit, k)
#define PERFEQ_LEAF_ARGS_MT(unit, k)
#define PERFEQ_LEAF_ARGS0_MT(unit, k)
#endif

#ifdef __cplusplus
}
#endif

#endif /* PERFEQ_RT_H */
