"""Instrument one C file: preprocess and parse for analysis, collect, insert, write (instrument stage)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from pathlib import Path

from pycparser import c_ast

from perfeq.errors import InstrumentError, UsageError
from perfeq.files import write_atomic
from perfeq.instrument import insert
from perfeq.instrument.collect.unit import UnitCollector
from perfeq.instrument.descriptors import UnitDescriptors
from perfeq.instrument.preprocess import Preprocessed, parse, preprocess, preprocessor_flags, read_source
from perfeq.instrument.source import SourceError, SourceText
from perfeq.toolchain import find_program


@dataclass(frozen=True)
class Instrumented:
    source: Path
    output: Path
    descriptors_path: Path
    descriptors: UnitDescriptors

    @property
    def warnings(self) -> list[str]:
        return self.descriptors.warnings


def default_compiler() -> list[str]:
    """The preprocessor to use when the user names none: mpicc (so mpi.h is found), else cc."""
    for name in ("mpicc", "cc", "gcc", "clang"):
        found = find_program(name)
        if found:
            return [found]
    raise InstrumentError("no C compiler found (tried mpicc, cc, gcc, clang)")


def descriptors_path_for(output: Path) -> Path:
    name = output.name[:-2] if output.name.endswith(".c") else output.name
    return output.with_name(name + ".json")


def instrument_file(
    path: Path,
    output: Path,
    compiler: list[str] | None = None,
    flags: list[str] | None = None,
    params: dict[str, str] | None = None,
    parsed: Parsed | None = None,
    program_functions: frozenset[str] = frozenset(),
    program_getters: frozenset[str] = frozenset(),
) -> Instrumented:
    """Instrument ``path`` into ``output`` (and its descriptor JSON beside it).

    ``params`` maps model symbols to the program's variables or macros (``--param N=n``).
    ``parsed``: the file already read and parsed (:func:`parse_file`); ``program_functions``: the
    functions the program's other units define (their calls are announced like this unit's own);
    ``program_getters``: those of them that return a number they read (:func:`input_getters`).
    Nothing is written when an error is raised; the input file is never modified.
    """
    path = Path(path)
    output = Path(output)
    if output.resolve() == path.resolve():
        raise UsageError(f"{path}: the output would overwrite the source; choose another -o")
    if parsed is None:
        parsed = parse_file(path, compiler, flags)
    display, text, encoding, pre, ast = parsed.display, parsed.text, parsed.encoding, parsed.pre, parsed.ast
    try:
        source = SourceText(display, text, pre.active_lines)
        source.align_preprocessed(pre.text, pre.marker_name)
        included = _included_sources(path, source, pre)
        collector = UnitCollector(ast, source, pre.marker_name, pre.user_headers, pre.macros,
                                  pre.function_macros, program_functions,
                                  {marker: inc.source for marker, inc in included.items()}, program_getters)
        unit = collector.collect()
    except SourceError as exc:
        raise InstrumentError(str(exc)) from None
    unit.digest = hashlib.sha256(text.encode()).hexdigest()
    unit.instrumented = str(output)
    unit.preprocess = preprocessor_flags(list(flags or []))
    _name_params(unit, params or {}, display)
    descriptors_path = descriptors_path_for(output).resolve()
    copies = {marker: _copy_path(output, index, inc.path) for index, (marker, inc) in enumerate(included.items())}
    inserted = collector.inserted[pre.marker_name]
    twins = [twin for twin in collector.twins.values() if twin.used and twin.begin_seq is not None]
    body = insert.apply(source, inserted + insert.twin_insertions(source, inserted, twins, display), display)
    copy_of = {inc.named: copies[marker].resolve() for marker, inc in included.items()}
    body = _replace_includes(body, copy_of.get)  # the #include of each included .c names its instrumented copy
    # the copy is compiled from another folder: a header of the source's own folder, which a quoted
    # #include finds before any -I, is named by its path (a/x.c's "headers.h" is a/headers.h even
    # when b/ has one too and both folders are on the line: hypre's AMG2013)
    body = _absolute_includes(body, path.absolute().parent)
    content = insert.preamble(unit, display, descriptors_path, collector.leaf_table()) + body
    write_atomic(descriptors_path, unit.to_json())
    for marker, inc in included.items():
        copy = insert.line_directive(1, inc.source.path) + "\n" + _absolute_includes(
            insert.apply(inc.source, collector.inserted[marker], inc.source.path), inc.path.parent)
        write_atomic(copies[marker], copy.encode(inc.encoding))
    write_atomic(output, content.encode(encoding))
    return Instrumented(path, output, descriptors_path, unit)


@dataclass(frozen=True)
class _Included:
    """A .c file of the program that this file #includes (a unity build: HPGMG-FV's
    ``#include "operators/gsrb.c"``), instrumented with it as part of its unit."""

    path: Path
    source: SourceText
    encoding: str
    named: str  # what the including file's #include "..." names


def _included_sources(path: Path, source: SourceText, pre: Preprocessed) -> dict[str, _Included]:
    """The program's .c files included once, directly by ``path`` with #include "..." (by marker name)."""
    found: dict[str, _Included] = {}
    folder = path.resolve().parent
    # every quoted #include line of the text, active or not: which were included is the
    # preprocessor's word (pre.entries); a branch of nothing but directives (HPGMG-FV's
    # #ifdef USE_GSRB / #define ... / #include "operators/gsrb.c") has no line in its output, so
    # the source text cannot tell it active
    named = {(folder / m.group(2)).resolve(): m.group(2) for m in _QUOTED_INCLUDE.finditer(source.text)}
    for marker in sorted(pre.user_headers):
        target = Path(marker).resolve()
        if not marker.endswith(".c") or pre.entries.get(marker) != 1 or target not in named:
            continue  # a header, included twice, or through a header: not instrumented (warned)
        inc_text, encoding = read_source(target)
        inc = SourceText(marker, inc_text, pre.header_lines.get(marker, set()))
        inc.align_preprocessed(pre.text, marker)
        found[marker] = _Included(target, inc, encoding, named[target])
    return found


# ``#include "name"`` at the start of a line: group 1 up to the quote, group 2 the name
_QUOTED_INCLUDE = re.compile(r'^(\s*#\s*include\s*)"([^"]+)"', re.MULTILINE)


def _replace_includes(text: str, replacement) -> str:
    """``text`` with each quoted #include's name replaced by ``replacement(name)`` (None: kept)."""
    def one(match: re.Match) -> str:
        new = replacement(match.group(2))
        return match.group(0) if new is None else f'{match.group(1)}"{new}"'

    return _QUOTED_INCLUDE.sub(one, text)


def _copy_path(output: Path, index: int, included: Path) -> Path:
    """Where the instrumented copy of an included .c file goes: beside the output, in its own folder."""
    name = output.name[:-2] if output.name.endswith(".c") else output.name
    return output.with_name(name + ".included") / f"{index}-{included.name}"


def _absolute_includes(text: str, folder: Path) -> str:
    """``#include "x.h"`` of a copy moved out of ``folder`` names the file it named there (the path
    as the compiler forms it, folder and name joined: a symbolic link is not followed)."""
    return _replace_includes(text, lambda name: folder / name if (folder / name).is_file() else None)


@dataclass(frozen=True)
class Parsed:
    """A source file read, preprocessed for analysis and parsed."""

    display: str
    text: str
    encoding: str
    pre: Preprocessed
    ast: c_ast.FileAST

    def function_definitions(self) -> list[c_ast.FuncDef]:
        """The functions this file itself defines (not its headers'), as parsed."""
        return [ext for ext in self.ast.ext if isinstance(ext, c_ast.FuncDef) and ext.coord is not None
                and ext.coord.file == self.pre.marker_name]

    def defined_functions(self) -> set[str]:
        """The functions this file itself defines (not its headers')."""
        return {ext.decl.name for ext in self.ast.ext
                if isinstance(ext, c_ast.FuncDef) and ext.coord is not None
                and ext.coord.file == self.pre.marker_name}


def parse_file(path: Path, compiler: list[str] | None = None, flags: list[str] | None = None) -> Parsed:
    """Read, preprocess (with the build's compiler and flags) and parse one .c file."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    if path.suffix != ".c":
        raise UsageError(f"{path}: not a C source file (perfeq instruments .c files)")
    display = str(path)
    text, encoding = read_source(path)
    pre = preprocess(path, compiler or default_compiler(), flags or [], encoding)
    return Parsed(display, text, encoding, pre, parse(pre, text.split("\n"), display))


def _name_params(unit: UnitDescriptors, params: dict[str, str], display: str) -> None:
    """Apply --param SYMBOL=variable: rename a found parameter's symbol, or add a user/macro one."""
    from perfeq.instrument.descriptors import ParamDescriptor, declaring_function

    for symbol, variable in params.items():
        found = False
        for i, p in enumerate(unit.params):
            if p.variable == variable:
                unit.params[i] = replace(p, symbol=symbol)
                found = True
        if not found and variable in unit.macros:
            unit.params.append(ParamDescriptor(variable=variable, symbol=symbol, source="macro", function=None,
                                               line=0, text=unit.macros[variable]))
            found = True
        if not found:  # recorded where loops read it as their bound (symbolic.observe.add_bound_value)
            unit.params.append(ParamDescriptor(variable=variable, symbol=symbol, source="user",
                                               function=declaring_function(unit, variable), line=0,
                                               text=variable))
