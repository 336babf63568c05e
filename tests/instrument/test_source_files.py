"""What the instrumenter accepts as a C source: Latin-1 text (older codes' comments and strings) kept
byte for byte, line splices and CRLF line endings, and one error line, with nothing written, for a
binary file or a file that is not .c."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import TESTS, one_line_error

from perfeq.cli import main
from perfeq.instrument.compile import compile_instrumented
from perfeq.instrument.descriptors import read_descriptors
from perfeq.toolchain import find_mpi

# A comment and a string literal in Latin-1 (0xe9: e acute, 0xa9: copyright): not valid UTF-8.
LATIN1 = (b"/* Programme de test -- caf\xe9, \xa9 1998 Universit\xe9 */\n"
          b"#include <stdio.h>\n"
          b"int main(void)\n{\n"
          b"    const char *word = \"caf\xe9\";\n"
          b"    int n = 0, s = 0;\n"
          b"    for (int i = 0; word[i]; i++) n++;  /* \xe9l\xe9ments */\n"
          b"    for (int i = 0; i < 100; i++) s += i * n;\n"
          b"    printf(\"%d %d\\n\", n, s);\n"
          b"    return 0;\n}\n")


def _outputs(source: Path, flag: str, *args: str) -> list[bytes]:
    """``source`` built plain and with perfeq (``mpicc flag``, instrumented into ``build`` beside it)
    and run with ``args``: the plain and the instrumented output, each binary's path in it as P."""
    mpicc, folder = find_mpi().mpicc, source.parent
    binary, plain = folder / source.stem, folder / "plain"
    compile_instrumented([mpicc, flag, str(source), "-o", str(binary)], folder / "build")
    subprocess.run([mpicc, flag, str(source), "-o", str(plain)], check=True)
    return [subprocess.run([str(b), *args], capture_output=True, check=True).stdout.replace(str(b).encode(), b"P")
            for b in (plain, binary)]


def test_latin1_source_is_instrumented_byte_for_byte_and_runs_the_same(tmp_path: Path) -> None:
    source = tmp_path / "latin.c"
    source.write_bytes(LATIN1)
    outputs = _outputs(source, "-std=c99")
    instrumented = (tmp_path / "build" / "latin.perfeq.c").read_bytes()
    for line in (b"caf\xe9, \xa9 1998 Universit\xe9", b"\"caf\xe9\"", b"/* \xe9l\xe9ments */"):
        assert line in instrumented
    assert outputs[0] == outputs[1] == b"4 19800\n"
    assert source.read_bytes() == LATIN1


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
def test_line_splices_with_lf_or_crlf_keep_the_lines_and_the_output(tmp_path: Path, ending: bytes) -> None:
    """A string, an expression, a // comment and a macro continued by a backslash: with CRLF line
    endings the string stopped the instrumenter ("cannot read character '\"'", Rodinia kmeans), and
    with LF a spliced string shifted every later line by one, so the loop after it was "not found
    in the source" and not instrumented."""
    text = (TESTS / "c" / "instrument" / "splices.c").read_bytes().replace(b"\n", ending)
    source = tmp_path / "splices.c"
    source.write_bytes(text)
    outputs = _outputs(source, "-w", "5")
    assert outputs[0] == outputs[1] == b"usage: P n\n10 20 x\n"
    unit = read_descriptors(tmp_path / "build" / "splices.perfeq.json")
    assert [loop.line for loop in unit.loops] == [19, 23]
    assert source.read_bytes() == text


@pytest.mark.parametrize(("name", "content", "message"), [
    ("prog.c", b"\x7fELF\x02\x01\x01\x00\x00\x00int main", "not C source text (it holds NUL bytes"),
    ("hostname", b"myhost\n", "not a C source file (perfeq instruments .c files)"),
])
def test_what_is_not_c_source_is_one_line_and_writes_nothing(tmp_path: Path, capsys, name: str, content: bytes,
                                                             message: str) -> None:
    source = tmp_path / name
    source.write_bytes(content)
    assert main(["instrument", str(source)]) == 2
    assert message in one_line_error(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name] and source.read_bytes() == content


def test_unknown_escapes_in_literals_parse_and_keep_the_output(tmp_path: Path) -> None:
    """``"\\%"`` and ``'\\%'`` (gcc: a warning, the character itself) stopped perfeq with "Illegal
    character"; they are parsed as the compiler reads them, the loop beside them on the same line is
    instrumented, and the program prints what the plain build prints."""
    source = tmp_path / "escapes.c"
    source.write_bytes((TESTS / "c" / "instrument" / "escapes.c").read_bytes())
    outputs = _outputs(source, "-w")
    assert outputs[0] == outputs[1] == b"%MatrixMarket matrix coordinate real general % a\\%b (x)\n6\n"
    assert "PERFEQ_TRIPS_LT" in (tmp_path / "build" / "escapes.perfeq.c").read_text()
