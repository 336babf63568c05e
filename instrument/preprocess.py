"""Preprocess and parse a C file for analysis only (instrument stage).

The user's own compiler runs as the preprocessor with the user's flags, so real system and MPI
headers are read; a few defines neutralise GNU extensions pycparser cannot read.  The preprocessed
text is parsed with pycparser; its line markers map every node back to the original file.  Nothing
here is ever written into the instrumented output.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast, c_parser

from perfeq.errors import InstrumentError

# GNU extensions that glibc/MPI headers use and pycparser cannot parse; analysis only.
NEUTRAL_DEFINES = (
    "__attribute__(x)=",
    "__extension__=",
    "__restrict=",
    "__restrict__=",
    "__inline=inline",
    "__inline__=inline",
    "__asm__(...)=",  # asm("..." : "=a" (r), "=b" (b) : ...) has commas
    "__asm(...)=",
    "__volatile__=volatile",
    "__const=const",
    "__signed__=signed",
    "__typeof__(x)=int",
    "__alignof__(x)=8",
    "_Noreturn=",
    "__thread=",
    "_Thread_local=",
    "_Float128=double",
    "_Float64x=double",
    "_Float64=double",
    "_Float32x=double",
    "_Float32=float",
    "_Float16=float",
    "__float128=double",
    "__int128=long",
    "__builtin_va_arg(v,t)=(*(t*)0)",
    "__builtin_offsetof(t,m)=((unsigned long)&((t*)0)->m)",
    "__builtin_expect(x,c)=(x)",  # a hint, no call: likely(j < n) is the loop condition j < n
    "__PERFEQ_ANALYSIS__=1",
)
PRELUDE = "typedef char *__builtin_va_list;\n"

# Flags of the user's compile line that matter to preprocessing (the rest are dropped).
_PP_FLAG_WITH_ARG = ("-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter", "-imacros")
_PP_FLAG_ALONE = ("-fopenmp", "-fopenmp-simd", "-pthread", "-ansi", "-nostdinc")
_LINE_MARKER = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"((?:\\.|[^"\\])*)"((?:\s+\d)*)')
_DEFINE = re.compile(r"^#(define|undef) ([A-Za-z_]\w*)(\(?)\s*(.*)")
_OUR_DEFINES = frozenset(d.split("=")[0].split("(")[0] for d in NEUTRAL_DEFINES)


def preprocessor_flags(flags: list[str]) -> list[str]:
    """Keep the flags of a compile line that change what the preprocessor produces."""
    kept: list[str] = []
    i = 0
    while i < len(flags):
        flag = flags[i]
        if flag in _PP_FLAG_WITH_ARG and i + 1 < len(flags):
            kept += [flag, flags[i + 1]]
            i += 2
            continue
        if flag.startswith(_PP_FLAG_WITH_ARG) or flag.startswith("-std=") or flag in _PP_FLAG_ALONE:
            kept.append(flag)
        i += 1
    return kept


@dataclass(frozen=True)
class Macro:
    """A macro as this build defines it at the end of the unit."""

    value: str  # its replacement text
    origin: str  # "command-line" (a -D of the compile line), "system" (a system header), else the file
    line: int  # its line in that file (0 on the command line)
    params: tuple[str, ...] | None = None  # a function-like macro's parameters; None: object-like

    @property
    def substitutes(self) -> bool:
        """A function-like macro whose expansion is plain text substitution: not variadic, no
        stringizing or pasting (``#``, ``##``) in its body."""
        return self.params is not None and "..." not in self.params and "#" not in self.value


def substitute(params: tuple[str, ...] | list[str], args: list[str], body: str) -> str | None:
    """``body`` with each of ``params`` replaced by its argument text, as the preprocessor expands a
    function-like macro (no rescanning); None when the arguments do not match the parameters."""
    if len(args) != len(params):
        return None
    values = dict(zip(params, args, strict=True))
    return re.sub(r"\b[A-Za-z_]\w*", lambda m: values.get(m.group(0), m.group(0)), body)


@dataclass
class Preprocessed:
    text: str  # the preprocessed text pycparser parses
    marker_name: str  # the name the line markers give the main file
    active_lines: set[int]  # original lines that produced output in this build
    user_headers: frozenset[str] = frozenset()  # the included files of the program's own (see _scan_markers)
    macros: dict[str, Macro] = field(default_factory=dict)  # object-like macros of the build (-dD)
    function_macros: dict[str, Macro] = field(default_factory=dict)  # function-like ones
    header_lines: dict[str, set[int]] = field(default_factory=dict)  # the own headers' lines that produced output
    entries: dict[str, int] = field(default_factory=dict)  # how many times each own header was entered


def read_source(path: Path) -> tuple[str, str]:
    """The text of a C source file and its encoding: UTF-8, or Latin-1 when it is not valid UTF-8
    (older codes' comments: every byte is kept and written back as it was).  A file with NUL bytes
    is not C source: one InstrumentError line."""
    data = path.read_bytes()
    if b"\0" in data:
        raise InstrumentError(f"{path}: not C source text (it holds NUL bytes: a binary file?)")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def _decode_lines(data: bytes, encoding: str) -> str:
    """Preprocessor output, line by line in the source's encoding, else Latin-1 (headers may differ)."""
    return "\n".join(_decode_line(line, encoding) for line in data.split(b"\n"))


def _decode_line(line: bytes, encoding: str) -> str:
    try:
        return line.decode(encoding)
    except UnicodeDecodeError:
        return line.decode("latin-1")


def preprocess(path: Path, compiler: list[str], flags: list[str], encoding: str = "utf-8") -> Preprocessed:
    """Run ``compiler -E -dD`` on ``path`` with the user's preprocessor flags and our neutral
    defines (``-dD`` keeps the macro definitions in the output, where they are read and blanked)."""
    with tempfile.TemporaryDirectory(prefix="perfeq-pp-") as tmp:
        prelude = Path(tmp) / "perfeq_prelude.h"
        prelude.write_text(PRELUDE)
        # the prelude before the user's own -include (a file with no #include lines built with
        # -include stdio.h: stdarg.h's __builtin_va_list came before its typedef)
        cmd = [*compiler, "-E", "-dD", "-include", str(prelude), *preprocessor_flags(flags)]
        cmd += [f"-D{d}" for d in NEUTRAL_DEFINES]
        cmd.append(str(path))
        try:
            proc = subprocess.run(cmd, capture_output=True, check=False)
        except FileNotFoundError:
            raise InstrumentError(f"{path}: cannot run the preprocessor '{compiler[0]}'") from None
    if proc.returncode != 0:
        stderr = proc.stderr.decode("utf-8", errors="replace")
        first = next((ln for ln in stderr.splitlines() if "error" in ln), stderr.strip())
        raise InstrumentError(f"preprocessing failed: {first.strip()}", location=None)
    return _scan_markers(_decode_lines(proc.stdout, encoding), str(path), _include_dirs(flags))


def _include_dirs(flags: list[str]) -> tuple[Path, ...]:
    """The folders the compile line itself names with -I or -iquote (not the compiler wrapper's):
    a header found there is the program's own, unless the folder holds MPI's or OpenMP's header."""
    found: list[str] = []
    i = 0
    while i < len(flags):
        flag = flags[i]
        if flag in ("-I", "-iquote") and i + 1 < len(flags):
            found.append(flags[i + 1])
            i += 2
            continue
        if flag.startswith("-iquote") and len(flag) > len("-iquote"):
            found.append(flag[len("-iquote"):])
        elif flag.startswith("-I") and len(flag) > 2:
            found.append(flag[2:])
        i += 1
    dirs = (Path(f) for f in found)
    return tuple(d.resolve() for d in dirs
                 if d.is_dir() and not any((d / h).exists() for h in ("mpi.h", "omp.h")))


def _scan_markers(text: str, path: str, include_dirs: tuple[Path, ...] = ()) -> Preprocessed:
    """The main file's name in the line markers, its lines that produced output, the headers of
    the program's own (not system headers, flag 3, in the source's folder, the working one or a folder
    the compile line names with -I), and
    the object-like macros defined at the end of the unit, with where each was defined; the
    ``#define``/``#undef`` lines of ``-dD`` are blanked (pycparser does not read them)."""
    marker_name = None
    current, line, system = None, 0, False
    active: set[int] = set()
    headers: set[str] = set()
    header_lines: dict[str, set[int]] = {}
    entries: dict[str, int] = {}
    macros: dict[str, Macro] = {}
    function_macros: dict[str, Macro] = {}
    lines = text.split("\n")
    for index, raw in enumerate(lines):
        marker = _LINE_MARKER.match(raw)
        if marker:
            line = int(marker.group(1))
            current = marker.group(2)
            system = "3" in marker.group(3).split()
            if marker_name is None and Path(current).name == Path(path).name:
                marker_name = current
            elif not system and not current.startswith("<"):
                headers.add(current)
                if "1" in marker.group(3).split():
                    entries[current] = entries.get(current, 0) + 1
            continue
        define = _DEFINE.match(raw)
        if define:
            _record_macro(macros, function_macros, define, current, system, line)
            lines[index] = ""
        elif current == marker_name and raw.strip():
            active.add(line)
        elif current in headers and raw.strip():
            header_lines.setdefault(current, set()).add(line)
        line += 1
    homes = (Path(path).resolve().parent, Path.cwd().resolve(), *include_dirs)
    # a .c file the unit includes is the program's wherever it is (an OpenMP variant's
    # #include "../source/driver.c", the driver's main in a sibling folder)
    own = frozenset(h for h in headers if h != marker_name and (_inside(Path(h), homes) or h.endswith(".c")))
    return Preprocessed(text="\n".join(lines), marker_name=marker_name or path, active_lines=active,
                        user_headers=own, macros=macros, function_macros=function_macros,
                        header_lines={h: header_lines.get(h, set()) for h in own},
                        entries={h: entries.get(h, 0) for h in own})


def _record_macro(macros: dict[str, Macro], function_macros: dict[str, Macro], define: re.Match,
                  current: str | None, system: bool, line: int) -> None:
    kind, name, paren, value = define.groups()
    function_macros.pop(name, None)
    origin = "command-line" if current == "<command-line>" else "system" if system else (current or "")
    if kind == "undef":
        macros.pop(name, None)
    elif current == "<built-in>" or name in _OUR_DEFINES:
        macros.pop(name, None)  # predefined, or ours
    elif paren:
        macros.pop(name, None)
        signature = re.match(r"([^)]*)\)\s*(.*)", value)
        if signature:
            params = tuple(p.strip() for p in signature.group(1).split(",") if p.strip())
            function_macros[name] = Macro(signature.group(2).strip(), origin, line, params)
    elif current == "<command-line>":
        macros[name] = Macro(value.strip() or "1", origin, 0)
    else:
        macros[name] = Macro(value.strip(), origin, line)


def _inside(path: Path, folders: tuple[Path, ...]) -> bool:
    try:
        resolved = path.resolve()
    except OSError:
        return False
    return resolved.is_file() and any(resolved.is_relative_to(folder) for folder in folders)


class _Parser(c_parser.CParser):
    """pycparser's parser, also reading C89's implicit ``int`` (gcc accepts it): an old-style
    definition with a declaration list, ``main(argc, argv) int argc; char **argv; { ... }`` (NPB's
    is.c), which pycparser 3 refuses as "Invalid function definition", and a declaration whose
    specifiers name no type, ``extern layer_size;`` or ``static count = 0;`` (Rodinia backprop),
    "Missing type in declaration"."""

    def _fix_decl_name_type(self, decl, typename):
        if not typename and isinstance(decl, c_ast.Decl):
            typename = [c_ast.IdentifierType(["int"], coord=decl.coord)]
        return super()._fix_decl_name_type(decl, typename)

    def _parse_external_declaration(self):
        tok = self._peek()
        if tok is None or tok.type != "ID" or self._starts_declaration(tok):
            return super()._parse_external_declaration()
        decl = self._parse_id_declarator()
        if self._peek_type() != "LBRACE" and not self._starts_declaration():
            self._parse_error("Invalid function definition", decl.coord)
        spec = {"qual": [], "alignment": [], "storage": [], "type": [c_ast.IdentifierType(["int"], coord=decl.coord)],
                "function": [], "type_attributes": []}
        return [self._parse_function_definition(spec, decl)]


def parse(pre: Preprocessed, source_lines: list[str], display: str) -> c_ast.FileAST:
    """Parse the preprocessed text; a parse error names the original file, line and column."""
    # (pycparser's private parts: where they are not, as in another major version, its own parser)
    parser = _Parser() if hasattr(c_parser.CParser, "_parse_function_definition") else c_parser.CParser()
    try:
        return parser.parse(_real_constants(_without_asm(_known_escapes(pre.text))), filename=pre.marker_name)
    except c_parser.ParseError as exc:
        message = _located(str(exc), parser)
        where = re.match(r"(.*?):(\d+):(\d+): (.*)", message) or re.match(r"(.*?):(\d+): (.*)", message)
        if not where:
            raise InstrumentError(f"{display}: {message}") from None
        file, line = where.group(1), int(where.group(2))
        text = where.group(where.lastindex)
        if text.startswith("before: "):
            text = f"syntax error before '{text[8:].strip()}'"
        col = where.group(3) if where.lastindex == 4 else None
        if file == pre.marker_name and 1 <= line <= len(source_lines):
            loc = f"{display}:{line}:{col}" if col else f"{display}:{line}"
            raise InstrumentError(f"{loc}: {text}: {source_lines[line - 1].strip()}") from None
        raise InstrumentError(f"{file}:{line}: error: {text} (in a header included by {display})") from None


# a string or character literal; an escape in one; the characters pycparser's lexer takes after a
# backslash (C's escapes, digits for octal ones, GNU's \e and the punctuation it allows)
_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_ESCAPE = re.compile(r"\\(.)", re.S)
_TAKEN = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~!=&^-\\?'\"\n")


def _known_escapes(text: str) -> str:
    """The text with every unknown escape in a literal (``"\\%"``: gcc warns and takes ``%``) written
    without its backslash, for pycparser, which refuses it; the length is kept (``"%%"``, ``'%' ``)
    so that the columns of what follows are the preprocessed text's, where hooks are placed."""
    def literal(match: re.Match) -> str:
        text = match.group(0)
        times = 2 if text[0] == '"' else 1  # a string: "%%"; a character: '%' and a space
        fixed = _ESCAPE.sub(lambda m: m.group(0) if m.group(1) in _TAKEN else m.group(1) * times, text)
        return fixed + " " * (len(text) - len(fixed))

    return _LITERAL.sub(literal, text) if "\\" in text else text


# an asm statement with qualifiers, which the -D of __asm__ does not reach (__asm__ __volatile__ (...):
# x86 intrinsics headers, pconfigintrin.h of GCC 12, included by immintrin.h)
_ASM = re.compile(r"\b(?:__asm__|__asm|asm)(?:\s|\n#[^\n]*)+(?:(?:volatile|__volatile__|__volatile|goto|inline)"
                  r"(?:\s|\n#[^\n]*)*)+\(")
# an imaginary constant (complex.h's I is GCC's 1.0iF)
_IMAGINARY = re.compile(r"(?<![\w.])((?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)([fFlL]?[iIjJ]|[iIjJ][fFlL]?)(?![\w.])")


def _without_asm(text: str) -> str:
    """The text with each qualified asm statement written ``0`` (a statement ``0;``), its other
    characters spaces, its newlines and line markers kept, so that lines and columns stay the
    preprocessed text's."""
    if "asm" not in text:
        return text
    pieces, last = [], 0
    for match in _ASM.finditer(text):
        if match.start() < last:
            continue
        end = _closing(text, match.end() - 1)
        if end is None:
            continue
        lines = text[match.start() + 1:end + 1].split("\n")  # line markers kept
        blank = [line if n and line.startswith("#") else " " * len(line) for n, line in enumerate(lines)]
        pieces += [text[last:match.start()], "0" + "\n".join(blank)]
        last = end + 1
    return "".join(pieces) + text[last:] if pieces else text


def _closing(text: str, start: int) -> int | None:
    """The index of the parenthesis that closes the one at ``start``, string literals skipped."""
    depth, i = 0, start
    while i < len(text):
        char = text[i]
        if char in "\"'":
            literal = _LITERAL.match(text, i)
            i = literal.end() if literal else i + 1
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return i
        i += 1
    return None


def _real_constants(text: str) -> str:
    """The text with imaginary constants (``1.0iF``) written as their real value, the suffix spaces."""
    if not _IMAGINARY.search(text):
        return text
    return _IMAGINARY.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)


def _located(message: str, parser: c_parser.CParser) -> str:
    """pycparser 3 names only the file for some errors ("f.c: Invalid expression"): add the line and
    column of the token the parser stopped at."""
    if re.match(r".*?:\d+(:\d+)?: ", message):
        return message
    try:  # private parts of pycparser 3's parser; without them the message stays as it is
        token = parser._peek()
        filename = parser.clex.filename
    except Exception:
        return message
    if token is None or not getattr(token, "lineno", None):
        return message
    what = message.split(": ", 1)[-1]
    return f"{filename}:{token.lineno}:{token.column}: {what.lower()} before '{token.value}'"
