"""Which functions return a number they read (instrument/collect/calls.py input_getters): what a
call of one assigns is a size candidate wherever it is called (tests/c/real/getter for the whole path)."""

from __future__ import annotations

from pycparser import c_ast, c_parser

from perfeq.instrument.collect.calls import input_getters, input_readers

FUNCTIONS = """
typedef struct { int argc; char **argv; } Arguments;
int strcmp(const char *, const char *);
int atoi(const char *);
unsigned long strtoul(const char *, char **, int);
int sscanf(const char *, const char *, ...);
int get_int_parameter(const char *line) { int value; if (!line) return -1; sscanf(line, "%d", &value); return value; }
int consume(Arguments *a, const char *key) {
    int i, result = 0;
    for (i = 0; i < a->argc; ++i)
        if (strcmp(a->argv[i], key) == 0) result = atoi(a->argv[i + 1]);
    return result;
}
int exists(Arguments *a, const char *key) { return a->argc > 1; }
int consume_or_default(Arguments *a, const char *key, int def) { return exists(a, key) ? consume(a, key) : def; }
long converted(const char *s) { return (long)atoi(s); }
int parse_int(const char *s) { char *next; int value = strtoul(s, &next, 10); return *next ? -1 : value; }
int identity(int n) { return n; }
int twice(const char *s) { int v; sscanf(s, "%d", &v); return 2 * v; }
int constant(void) { return 4; }
void reads(const char *s, int *n) { sscanf(s, "%d", n); }
"""


def test_getters_return_what_they_read_directly_through_another_getter_or_a_default() -> None:
    ast = c_parser.CParser().parse(FUNCTIONS)
    functions = [ext for ext in ast.ext if isinstance(ext, c_ast.FuncDef)]
    assert input_getters(functions) == {"get_int_parameter", "consume", "consume_or_default", "converted",
                                       "parse_int"}
    # a getter of another unit makes its callers here getters too
    caller = [f for f in functions if f.decl.name == "consume_or_default"]
    assert input_getters(caller, frozenset({"consume"})) == {"consume_or_default"}


READERS = """
int atoi(const char *);
int sscanf(const char *, const char *, ...);
int strncmp(const char *, const char *, unsigned long);
int get_int_parameter(const char *line) { int value; sscanf(line, "%d", &value); return value; }
void scanned(const char *s, int *n) { sscanf(s, "%d", n); }
int stored(const char *key, const char *line, int *value) {
    if (strncmp(key, line, 4) == 0) { *value = atoi(line + 5); return 1; }
    return 0;
}
void through_local(const char *s, int *n, int *m) { int v; sscanf(s, "%d", &v); n[0] = v; *m = 4; }
void through_getter(const char *s, int *n) { *n = get_int_parameter(s); }
void in_a_loop(const char *s, int *n) { int i; for (i = 0; i < 2; i++) *n = atoi(s); }
void copied(int *n, int m) { *n = m; }
"""


def test_readers_store_what_they_read_through_a_pointer_parameter() -> None:
    ast = c_parser.CParser().parse(READERS)
    functions = [ext for ext in ast.ext if isinstance(ext, c_ast.FuncDef)]
    # through_local's m is given a constant; in_a_loop's store is in a loop; copied stores a formal
    assert input_readers(functions, frozenset({"get_int_parameter"})) == {
        "scanned": {1}, "stored": {2}, "through_local": {1}, "through_getter": {1}}
