"""The unit-level walk of the instrumenter (stage 1, instrument/collect): one translation unit.

:class:`UnitCollector` declares the file's types, globals and functions, runs a
:class:`~perfeq.instrument.collect.function.FunctionCollector` per function, and keeps the list of
:class:`Insertion` (text to put at an offset of the original source) they plan, and the warnings.
"""

from __future__ import annotations

import bisect
import operator
import re
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from pycparser import c_ast

from perfeq.arguments import unreserved
from perfeq.instrument import descriptors as d
from perfeq.instrument.collect import summaries
from perfeq.instrument.collect.calls import ALLOCATORS, argv_setters, input_getters, input_readers
from perfeq.instrument.collect.function import FunctionCollector
from perfeq.instrument.collect.twins import Twin, records_no_values, twin_header
from perfeq.instrument.collect.walk import command_line_names, element_text, find, generate, walk
from perfeq.instrument.opcount import Scope, struct_key, type_of_decl
from perfeq.instrument.preprocess import Macro, substitute
from perfeq.instrument.source import SourceText

# depths of expression hooks (UnitCollector.wrap): above any statement nesting, longer spans outside
_EXPRESSION_DEPTH = 1 << 30


@dataclass(order=True)
class Insertion:
    """Text to insert at an offset of the original source.

    At one offset, closers come before openers, inner closers before outer ones, outer openers
    before inner ones, and otherwise openers in the order they were planned in, closers in the
    reverse order.
    """

    offset: int
    rank: int  # 0: closer, 1: opener
    depth: int  # negated for closers, so that inner closers come first
    seq: int  # negated for closers
    text: str = field(compare=False)


class UnitCollector:
    """Collects the descriptors and insertions of one unit."""

    def __init__(self, ast: c_ast.FileAST, source: SourceText, marker_name: str,
                 user_headers: frozenset[str] = frozenset(), macros: dict[str, Macro] | None = None,
                 function_macros: dict[str, Macro] | None = None,
                 program_functions: frozenset[str] = frozenset(), included: dict[str, SourceText] | None = None,
                 program_getters: frozenset[str] = frozenset()):
        self.ast = ast
        self.build_macros = macros or {}  # the object-like macros of this build (preprocess -dD)
        self.build_function_macros = function_macros or {}  # its function-like ones
        # the texts instrumented: the file's own and the program's .c files it includes (by marker
        # name); self.src, self.marker and self.insertions are those of the one whose code is being
        # collected (:meth:`_using`), and messages name it (:attr:`display`)
        self.sources: dict[str, SourceText] = {marker_name: source, **(included or {})}
        self.inserted: dict[str, list[Insertion]] = {name: [] for name in self.sources}
        self.main_marker = marker_name
        self.src, self.marker = source, marker_name
        self.insertions: list[Insertion] = self.inserted[marker_name]
        self.user_headers = user_headers  # functions declared there are the program's (other units)
        self.warnings: list[str] = []
        self.typedefs: dict = {}
        self.fields: dict = {}
        self.structs: dict[str, dict] = {}  # struct key -> its members' CTypes, by name
        self.globals = Scope()
        self.user_functions: set[str] = set(program_functions)  # defined in this unit or another of the program
        self.program_getters = program_getters  # functions of other units returning a number they read
        self.world_settings: dict[str, bool] | None = None  # communicator variables: set only to the world?
        self.functions: set[str] = set()  # every function the unit declares or defines (a library's too)
        self.prototypes: dict[str, c_ast.FuncDecl] = {}  # the declarations of functions, by name
        self.defined: list[c_ast.FuncDef] = []
        self.unit = d.UnitDescriptors(source=source.path, digest="", instrumented="")
        self._seq = 0
        self._callgraph: dict[str, set[str]] = {}
        self._mpi_calls = summaries.mpi_table()
        self._enumerators: set[str] | None = None
        self.macro_hooked: set[int] = set()  # first tokens of the calls hooked inside macro invocations
        self.leaves: set[str] = set()  # leaf functions (summaries.leaf_functions)
        self.leaf_calls: list[tuple[int, int, str]] = []  # (caller, call site, callee) of PERFEQ_LEAF_CALLED k
        self.leaf_begun: dict[str, int] = {}  # leaf functions given PERFEQ_LEAF_BEGIN: name -> index
        self.twins: dict[str, Twin] = {}  # leaf functions that get a twin (collect/twins.py), by name

    # ---- helpers --------------------------------------------------------------------------
    def in_main(self, node: c_ast.Node) -> bool:
        """The node is in the text being collected (the file's own, or an included one's)."""
        return node.coord is not None and node.coord.file == self.marker

    def in_program_text(self, node: c_ast.Node) -> bool:
        """The node is in a text this unit instruments (its own or an included .c file's)."""
        return node.coord is not None and node.coord.file in self.sources

    @contextmanager
    def _using(self, marker: str):
        """Collect in the text of ``marker`` (its tokens, insertions and name in messages)."""
        saved = self.src, self.marker, self.insertions
        self.src, self.marker, self.insertions = self.sources[marker], marker, self.inserted[marker]
        try:
            yield
        finally:
            self.src, self.marker, self.insertions = saved

    @property
    def display(self) -> str:
        """The name messages give the text being collected (the path as the user gave it)."""
        return self.src.path

    @property
    def included_file(self) -> str | None:
        """The included .c file being collected, None while collecting the unit's own text."""
        return None if self.marker == self.main_marker else self.src.path

    def tokens(self):
        """The tokens of every text this unit instruments."""
        for source in self.sources.values():
            yield from source.tokens

    def insert(self, offset: int, text: str, depth: int = 0, closing: bool = False) -> None:
        self._seq += 1
        # closers in the reverse of planning order, so that hooks of equal depth and span (the call
        # f(x) and the condition of ``if (f(x))``) close as they opened
        self.insertions.append(Insertion(offset=offset, rank=0 if closing else 1,
                                         depth=-depth if closing else depth,
                                         seq=-self._seq if closing else self._seq, text=text))

    def wrap(self, start: int, end: int, opener: str, closer: str = ")") -> None:
        """Wrap the source text from offset ``start`` to ``end`` in an expression hook.

        Expression hooks (call announcements, MPI sites, allocation sizes, conditions) nest inside
        statement-level insertions; among themselves the one spanning more text goes outside, so
        that hooks starting at one offset nest as the expressions do: the condition of
        ``if (f(x) >= 0)`` around the call ``f(x)``, the size ``g(n) * 8`` around ``g(n)``.
        """
        depth = _EXPRESSION_DEPTH + (_EXPRESSION_DEPTH - (end - start))
        self.insert(start, opener, depth)
        self.insert(end, closer, depth, closing=True)

    def warn(self, line: int, col: int | None, message: str, display: str | None = None) -> None:
        display = display or self.display
        where = f"{display}:{line}:{col}" if col else f"{display}:{line}"
        self.warnings.append(f"{where}: warning: {message}")

    def tok(self, node: c_ast.Node, expected: str | None = None) -> int | None:
        """Token index at the node's coordinate in the original text (None if it is not there)."""
        if not self.in_main(node):
            return None
        index = self.src.token_at(node.coord.line, node.coord.column)
        if index is None:
            return None
        if expected is not None and self.src.tokens[index].text != expected:
            return None
        return index

    # ---- the unit -------------------------------------------------------------------------
    def collect(self) -> d.UnitDescriptors:
        for ext in self.ast.ext:
            self._declare_global(ext)
        for ext in self.ast.ext:
            if isinstance(ext, c_ast.FuncDef) and self.in_program_text(ext):
                self.defined.append(ext)
                self.user_functions.add(ext.decl.name)
        for ext in self.ast.ext:
            if isinstance(ext, c_ast.Decl) and self.in_program_text(ext) and not isinstance(ext.type, c_ast.FuncDecl):
                with self._using(ext.coord.file):
                    self._global_shape(ext)
        self.stoppers = summaries.stopping_functions(self.defined)
        self.command_line = command_line_names(self.defined)
        self.setters = argv_setters(self.defined, self.user_functions, self.command_line)
        self.getters = input_getters(self.defined, self.program_getters) | self.program_getters
        self.readers = input_readers(self.defined, self.getters)
        mine = [ext for ext in self.ast.ext if self.in_program_text(ext)]
        taken = summaries.address_taken(mine, {fd.decl.name for fd in self.defined})
        self.inlined = summaries.straight_line_functions(self.defined, self.user_functions, self.typedefs,
                                                         self.fields, self.globals, taken)
        self.leaves = summaries.leaf_functions(self.defined, self.user_functions, self.functions, self.globals,
                                               self.inlined)
        self._plan_twins()
        for index, funcdef in enumerate(self.defined):
            with self._using(funcdef.coord.file):
                FunctionCollector(self, funcdef, index).run()
        self._included_work()
        self._mark_recursion()
        self._macros()
        self.unit.warnings = list(self.warnings)
        return self.unit

    def _plan_twins(self) -> None:
        """The leaf functions of the file's own text that get a twin (collect/twins.py): not one a
        declaration leaves without a prototype (``void inidat(), prtdat();`` in LLNL's mpi_heat2D, whose
        calls then pass a ``float (*)[N][N]`` for a ``float *``: the twin's prototype made that a
        diagnostic, an error by default in GCC 14)."""
        definitions = {id(ext.decl) for ext in self.ast.ext if isinstance(ext, c_ast.FuncDef)}
        declarations = [n for n in find(self.ast, c_ast.Decl)
                        if isinstance(n.type, c_ast.FuncDecl) and n.name and id(n) not in definitions]
        unprototyped = {n.name for n in declarations if n.type.args is None}
        declared = {ext.name for ext in self.ast.ext if isinstance(ext, c_ast.Decl)
                    and isinstance(ext.type, c_ast.FuncDecl) and ext.type.args is not None}
        with self._using(self.main_marker):
            for funcdef in self.defined:
                name = funcdef.decl.name
                start = self.definition_start(funcdef)
                if (name in self.leaves and name not in unprototyped and self.in_main(funcdef) and start is not None
                        and self.tok(funcdef.body, "{") is not None):
                    header = twin_header(funcdef)
                    if header is not None:
                        self.twins[name] = Twin(name, header, start, declared=name in declared,
                                                valueless=records_no_values(funcdef, ALLOCATORS))

    def definition_start(self, funcdef: c_ast.FuncDef) -> int | None:
        """The offset where a function's definition starts (its first specifier) in the text being
        collected: after the previous declaration, definition or preprocessor line."""
        index = self.tok(funcdef.decl, funcdef.decl.name)
        if index is None:
            return None
        tokens = self.src.tokens
        while index > 0 and tokens[index - 1].kind != "pp" and tokens[index - 1].text not in (";", "}"):
            index -= 1
        return tokens[index].start

    def leaf_table(self) -> tuple[list[dict[str, int]], dict[int, tuple[int, int]]]:
        """The runtime's table of leaf call sites, in PERFEQ_LEAF_CALLED order: each site's callee
        (-1 when it was not given PERFEQ_LEAF_BEGIN) and its first counter and value slot, after
        the caller's own slots; and per caller, the (counters, value slots) its leaf sites add."""
        by_id = {f.id: f for f in self.unit.functions}
        space: dict[int, tuple[int, int]] = {}
        table = []
        for caller, site, name in self.leaf_calls:
            callee = self.leaf_begun.get(name, -1)
            slots, values = space.get(caller, (0, 0))
            own = by_id.get(caller)
            entry = {"caller": caller, "site": site, "callee": callee, "counts": 0, "values": 0}
            if callee >= 0 and own is not None:
                entry["counts"], entry["values"] = own.nslots + slots, own.nvalues + values
                # its calls, its context id, its counters
                space[caller] = (slots + 2 + by_id[callee].nslots, values + by_id[callee].nvalues)
            else:
                entry["callee"] = -1
            table.append(entry)
        return table, space

    def _included_work(self) -> None:
        """Warn of functions with loops defined in the program's own included files (HPGMG-FV's
        ``#include "operators/gsrb.c"``): only this file's own text is instrumented, so their work is
        missing from the model, which is then too fast, silently."""
        found: dict[str, list[str]] = {}
        for ext in self.ast.ext:
            if (isinstance(ext, c_ast.FuncDef) and ext.coord is not None and ext.coord.file in self.user_headers
                    and ext.coord.file not in self.sources
                    and any(isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)) for n in walk(ext.body))):
                found.setdefault(ext.coord.file, []).append(ext.decl.name)
        for file, names in sorted(found.items()):
            shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
            self.warn(self._include_line(file), None,
                      f"{file} is included and defines {len(names)} function(s) with loops ({shown}): perfeq "
                      "instruments only this file's own text, so their operations are missing from the model, "
                      "which predicts too little time for them")

    def _include_line(self, file: str) -> int:
        """The line of this file that includes ``file`` (directly or through another header), or 0."""
        text = self.src.text.split("\n")
        name = Path(file).name
        for number, line in enumerate(text, 1):
            if line.lstrip().startswith("#") and "include" in line and name in line:
                return number
        return 0

    def _declare_global(self, ext: c_ast.Node) -> None:
        if isinstance(ext, c_ast.Typedef):
            self.typedefs[ext.name] = type_of_decl(ext.type, self.typedefs)
            self._fields_of(ext.type)
        elif isinstance(ext, c_ast.FuncDef):
            self.globals.names[ext.decl.name] = type_of_decl(ext.decl.type, self.typedefs)
            self.functions.add(ext.decl.name)
        elif isinstance(ext, c_ast.Decl):
            self._fields_of(ext.type)
            if ext.name:
                self.globals.names[ext.name] = type_of_decl(ext.type, self.typedefs)
                if isinstance(ext.type, c_ast.FuncDecl):
                    self.functions.add(ext.name)
                    self.prototypes[ext.name] = ext.type
                if isinstance(ext.type, c_ast.FuncDecl) and (self.in_program_text(ext) or self._program_header(ext)):
                    self.user_functions.add(ext.name)

    def _program_header(self, decl: c_ast.Decl) -> bool:
        """A prototype in a header of the program's own (a function another unit defines: its calls
        are announced like this file's; MPI's are MPI calls)."""
        return (decl.coord is not None and decl.coord.file in self.user_headers
                and not decl.name.startswith(("MPI_", "PMPI_", "omp_")))

    def _fields_of(self, node: c_ast.Node) -> None:
        while isinstance(node, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)):
            node = node.type
        if isinstance(node, (c_ast.Struct, c_ast.Union)) and node.decls:
            members = self.structs.setdefault(struct_key(node), {})
            for member in node.decls:
                if member.name:
                    self.fields[member.name] = members[member.name] = type_of_decl(member.type, self.typedefs)
                self._fields_of(member.type)

    def scalar_fields(self, struct: str, prefix: str, c_prefix: str, depth: int = 0) -> list[tuple[str, str]]:
        """The arithmetic fields of a struct value, nested structs included: (canonical path, C
        text) pairs such as ``("cmd.nx", "cmd.nx")``; pointers and arrays are not followed."""
        found = []
        for name, ctype in self.structs.get(struct, {}).items():
            if ctype.depth:
                continue
            if ctype.struct is None:
                found.append((f"{prefix}.{name}", f"{c_prefix}.{name}"))
            elif depth < 2:
                found += self.scalar_fields(ctype.struct, f"{prefix}.{name}", f"{c_prefix}.{name}", depth + 1)
        return found

    def _global_shape(self, decl: c_ast.Decl) -> None:
        if isinstance(decl.type, c_ast.ArrayDecl):
            extents = self.array_extents(decl)
            self.unit.shapes.append(d.ArrayShape(
                id=len(self.unit.shapes), function=None, name=decl.name, line=decl.coord.line, kind="fixed",
                ndims=len(extents), extents=extents, element=element_text(decl.type), value_slot=None,
            ))

    def enumerators(self) -> set[str]:
        """Names of the enumeration constants declared at file scope (constants in array extents)."""
        if self._enumerators is None:
            self._enumerators = {n.name for ext in self.ast.ext if not isinstance(ext, c_ast.FuncDef)
                                 for n in find(ext, c_ast.Enumerator)}
        return self._enumerators

    def enumerator_values(self) -> dict[str, int]:
        """The values of the file-scope enumeration constants the unit's code names
        (``enum {totalTimer, ..., numberOfTimers};``: a loop to ``numberOfTimers``), where each
        follows from the ones before it (implicit, an integer, or +, -, *, <<, |, & of those)."""
        used = {tok.text for tok in self.tokens() if tok.kind == "ident"}
        values: dict[str, int] = {}
        for ext in self.ast.ext:
            if isinstance(ext, c_ast.FuncDef):
                continue
            for enum in find(ext, c_ast.EnumeratorList):
                following: int | None = 0
                for item in enum.enumerators:
                    value = following if item.value is None else _integer(item.value, values)
                    if value is None:
                        following = None
                        continue
                    values[item.name] = value
                    following = value + 1
        return {name: value for name, value in sorted(values.items()) if name in used}

    def array_extents(self, decl: c_ast.Decl) -> list[str]:
        """Original text of each [extent] after the declared name; of a declarator a function-like
        macro writes (PolyBench's ``DATA_TYPE POLYBENCH_2D(A, N, N, n, n)``), the extents of the
        macro's body with its arguments substituted (macros inside them are left for the resolver)."""
        index = self.tok(decl, decl.name)
        if index is None and isinstance(decl.type, c_ast.ArrayDecl):
            index = self._name_in_macro(decl)
        extents: list[str] = []
        node = decl.type
        if index is None:
            while isinstance(node, c_ast.ArrayDecl):
                extents.append(generate(node.dim))
                node = node.type
            return extents
        j = index + 1
        while j < len(self.src.tokens) and self.src.tokens[j].text == "[":
            close = self.src.match_bracket(j)
            extents.append(self.src.text_of(j + 1, close - 1))
            j = close + 1
        if not extents and isinstance(decl.type, c_ast.ArrayDecl):
            extents = self._macro_extents(index, decl.name) or []
        return extents

    def _name_in_macro(self, decl: c_ast.Decl) -> int | None:
        """The token of ``decl``'s name as the first argument of a function-like macro invocation
        among the few tokens from its coordinate (``DATA_TYPE POLYBENCH_2D(A, ...)``), or None."""
        if not self.in_main(decl):
            return None
        line, tokens = decl.coord.line, self.src.tokens
        for i in range(bisect.bisect_left(tokens, line, key=lambda t: t.line), len(tokens) - 2):
            if tokens[i].line > line + 2:
                break
            if (tokens[i].text in self.build_function_macros and tokens[i + 1].text == "("
                    and tokens[i + 2].text == decl.name):
                return i + 2
        return None

    def _macro_extents(self, index: int, name: str) -> list[str] | None:
        """The extents of ``name`` declared by the macro invocation around token ``index``."""
        tokens = self.src.tokens
        if index < 2 or tokens[index - 1].text != "(" or tokens[index - 2].text not in self.build_function_macros:
            return None
        macro = self.build_function_macros[tokens[index - 2].text]
        close = self.src.match_bracket(index - 1)
        args = [self.src.text_of(a, b) for a, b in self.src.split_top(index, close - 1, ",")]
        body = substitute(macro.params, args, macro.value) if macro.params is not None else None
        if body is None:
            return None
        found = re.match(rf"\s*{re.escape(name)}\s*((?:\[[^\[\]]*(?:\([^()]*\)[^\[\]]*)*\])+)\s*$", body)
        if not found:
            return None
        return [self._expand(part) for part in re.findall(r"\[([^\[\]]*(?:\([^()]*\)[^\[\]]*)*)\]", found.group(1))]

    def _expand(self, text: str) -> str:
        """``text`` with the macros of headers expanded, as the preprocessor would (``POLYBENCH_RESTRICT
        POLYBENCH_C99_SELECT(N,n) + POLYBENCH_PADDING_FACTOR`` -> ``N + 0``); a macro of the command
        line (``-DN=512``, a problem size) stays a name."""
        def keep(name: str) -> bool:
            macro = self.build_macros.get(name) or self.build_function_macros.get(name)
            return macro is None or macro.origin == "command-line"

        def call(match: re.Match) -> str:
            macro = self.build_function_macros[match.group(1)]
            args = [a.strip() for a in match.group(2).split(",")]
            expanded = substitute(macro.params, args, macro.value) if macro.params is not None else None
            return match.group(0) if expanded is None else expanded

        for _ in range(8):
            before = text
            text = re.sub(r"\b([A-Za-z_]\w*)\s*\(([^()]*)\)",
                          lambda m: call(m) if m.group(1) in self.build_function_macros and not keep(m.group(1))
                          else m.group(0), text)
            text = re.sub(r"\b[A-Za-z_]\w*", lambda m: m.group(0) if keep(m.group(0)) or m.group(0)
                          in self.build_function_macros else f"({self.build_macros[m.group(0)].value})"
                          if self.build_macros[m.group(0)].value.strip() else "", text)
            if text == before:
                break
        return " ".join(text.split())

    def _mark_recursion(self) -> None:
        functions = []
        for f in self.unit.functions:
            recursive = summaries.reaches(self._callgraph, f.name, f.name)
            if recursive:
                self.warn(f.line, None, f"recursion is not supported: '{f.name}' calls itself "
                          "(directly or indirectly); its loops are modeled per context as measured", f.file)
                self.unit.warnings = list(self.warnings)
            functions.append(replace(f, recursive=recursive))
        self.unit.functions = functions

    def _macros(self) -> None:
        """The object-like macros the unit's text names (directly or through other macros), with
        their values in this build; those whose value is a number, defined on the compile line or
        in the program's own files, are parameter candidates (a size compiled in)."""
        for tok in self.tokens():  # the file's own lines (also those #undef'd before the end)
            if tok.kind != "pp":
                continue
            match = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)(?!\()\s+(.*)", tok.text)
            if match:
                value = re.sub(r"/\*.*?\*/|//.*", "", match.group(2)).strip()
                self.unit.macros[match.group(1)] = value
        named = self._named_macros()
        for name in named:
            self.unit.macros[name] = self.build_macros[name].value
        self.unit.macros = dict(sorted(self.unit.macros.items()))
        self.unit.enumerators = self.enumerator_values()
        self.unit.function_macros = {
            name: {"params": list(self.build_function_macros[name].params), "body": self.build_function_macros[name].value}
            for name in self._named_function_macros() if self.build_function_macros[name].substitutes}
        taken = {p.variable for p in self.unit.params}
        for name in named:
            macro = self.build_macros[name]
            if macro.origin == "system" or name in taken or name.startswith("__") or d.macro_number(macro.value) is None:
                continue
            source = "define" if macro.origin == "command-line" else "macro"
            line = macro.line if macro.origin == self.marker else 0
            self.unit.params.append(d.ParamDescriptor(variable=name, symbol=unreserved(name), source=source, function=None,
                                                      line=line, text=macro.value))

    def _named_function_macros(self) -> list[str]:
        """The build's function-like macros named in the unit's code, in the values of the macros it
        names, and in their own bodies (``_PB_N`` = ``POLYBENCH_LOOP_BOUND(N,n)``): the symbolic stage
        expands them where a bound or size uses one."""
        known = self.build_function_macros
        names = [tok.text for tok in self.tokens() if tok.kind == "ident"]
        names += [w for value in self.unit.macros.values() for w in _IDENTIFIER.findall(value)]
        return sorted(_reached(names, known))

    def is_call_macro(self, macro: str, callee: str, alone: bool) -> bool:
        """Whether an invocation of ``macro`` (``alone``: a name without arguments) is one call of
        ``callee`` and nothing else, by the macro's definition: ``#define SEND(b, n) MPI_Send(b, n,
        ...)``, ``#define SYNC MPI_Barrier(MPI_COMM_WORLD)``."""
        function_like = self.build_function_macros.get(macro)
        defined = self.build_macros.get(macro) if alone else function_like
        if defined is None or (function_like is not None) == alone:
            return False
        body = defined.value.strip()
        match = re.match(rf"{re.escape(callee)}\s*\(", body)
        if match is None:
            return False
        depth = 0
        for index in range(match.end() - 1, len(body)):
            depth += {"(": 1, ")": -1}.get(body[index], 0)
            if depth == 0:
                return index == len(body) - 1
        return False

    def writes_pragma(self, name: str) -> bool:
        """Whether macro ``name`` expands to a pragma (``_Pragma`` in its body or a macro it names)."""
        known = {**self.build_macros, **self.build_function_macros}
        return name in known and any("_Pragma" in known[n].value for n in _reached([name], known))

    def substituting(self, name: str) -> bool:
        """Whether an invocation of macro ``name`` expands its arguments as plain text: it and every
        function-like macro its body reaches substitute (no ``#``, ``##``, not variadic), so a hook
        put around an argument's call is expanded with it and never turned into a string."""
        known = self.build_function_macros
        return name in known and all(known[n].substitutes for n in _reached([name], known))

    def _named_macros(self) -> list[str]:
        """The build's macros named in the unit's code, and those named in their values."""
        return sorted(_reached([tok.text for tok in self.tokens() if tok.kind == "ident"], self.build_macros))


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _reached(names: list[str], known: dict[str, Macro]) -> set[str]:
    """The macros of ``known`` among ``names``, and those their values name, transitively."""
    todo = [name for name in names if name in known]
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += [w for w in _IDENTIFIER.findall(known[name].value) if w in known]
    return reached


_INTEGER_OPERATIONS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "<<": operator.lshift,
                       "|": operator.or_, "&": operator.and_}


def _integer(node: c_ast.Node, known: dict[str, int]) -> int | None:
    """The value of an enumerator's integer constant expression, or None."""
    if isinstance(node, c_ast.Constant) and node.type == "int":
        try:
            text = node.value.rstrip("uUlL")
            return int(text, 8) if len(text) > 1 and text[0] == "0" and text[1] not in "xXbB" else int(text, 0)
        except ValueError:
            return None
    if isinstance(node, c_ast.ID):
        return known.get(node.name)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        value = _integer(node.expr, known)
        return None if value is None else (-value if node.op == "-" else value)
    if isinstance(node, c_ast.BinaryOp) and node.op in _INTEGER_OPERATIONS:
        left, right = _integer(node.left, known), _integer(node.right, known)
        if left is None or right is None or (node.op == "<<" and not 0 <= right < 64):
            return None
        return _INTEGER_OPERATIONS[node.op](left, right)
    return None
