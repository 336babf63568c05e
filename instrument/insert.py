"""Apply planned insertions to the original source and write the outputs (instrument stage).

The only code of the instrumenter that produces text.  Insertions go into the original text, so
macros, comments, includes and formatting stay as written; ``#line`` directives keep compiler
messages and debuggers on the user's lines.  Outputs are written with perfeq.files.write_atomic,
so an error never leaves a half-written file.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from perfeq import __version__
from perfeq.instrument.collect.twins import END_GUARD, GUARD, Twin
from perfeq.instrument.collect.unit import Insertion
from perfeq.instrument.descriptors import UnitDescriptors
from perfeq.instrument.source import SourceText

_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("perfeq.instrument", "templates"),
    autoescape=False,
    keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined,
)


def c_string(text: str) -> str:
    """Escape text for a C string literal."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def line_directive(line: int, source: str) -> str:
    return f'#line {line} "{c_string(source)}"'


def apply(source: SourceText, insertions: list[Insertion], line_name: str) -> str:
    """The original text with every insertion in place; #line restores numbering after newlines."""
    return _apply_range(source, insertions, line_name, 0, len(source.text))


def _apply_range(source: SourceText, insertions: list[Insertion], line_name: str, start: int, end: int) -> str:
    """The text from offset ``start`` to ``end`` with the insertions there in place."""
    pp_starts = {tok.start for tok in source.tokens if tok.kind == "pp"}
    by_offset: dict[int, list[Insertion]] = {}
    for ins in sorted(ins for ins in insertions if start <= ins.offset < end or ins.offset == end == len(source.text)):
        by_offset.setdefault(ins.offset, []).append(ins)
    out: list[str] = []
    last = start
    text = source.text
    for offset in sorted(by_offset):
        out.append(text[last:offset])
        chunk = "".join(ins.text for ins in by_offset[offset])
        if offset in pp_starts or "\n" in chunk:
            line, _ = source.line_col(offset)
            chunk = chunk.rstrip() + "\n" + line_directive(line, line_name) + "\n"
        out.append(chunk)
        last = offset
    out.append(text[last:end])
    return "".join(out)


def twin_insertions(source: SourceText, insertions: list[Insertion], twins: list[Twin], line_name: str
                    ) -> list[Insertion]:
    """The copies of the leaf functions called through twins (collect/twins.py), each after its
    function, and their prototypes before the callers defined before it; guarded by PERFEQ__TWINS."""
    added: list[Insertion] = []
    seq = max((abs(ins.seq) for ins in insertions), default=0)
    for twin in twins:
        body = _apply_range(source, [ins for ins in insertions if ins.seq != twin.begin_seq], line_name,
                            twin.start, twin.end)
        text = (f"\n{GUARD}\n{twin.header}\n{line_directive(twin.line, line_name)}\n"
                f"{{ perfeq_ctx_t *perfeq__x __attribute__((unused)) = 0;{body}\n{END_GUARD}\n")
        seq += 1
        added.append(Insertion(offset=twin.end, rank=1, depth=0, seq=seq, text=text))
        seq += 1  # (a static function every call of which now calls its twin is not used otherwise)
        added.append(Insertion(offset=twin.defined_at, rank=1, depth=0, seq=seq, text="__attribute__((unused)) "))
        for caller in sorted(twin.callers):
            seq += 1
            added.append(Insertion(offset=caller, rank=1, depth=-1, seq=seq,
                                   text=f"\n{GUARD}\n{twin.header};\n{END_GUARD}\n"))
    return added


def preamble(unit: UnitDescriptors, line_name: str, descriptors_path: Path,
             leaves: tuple[list[dict[str, int]], dict[int, tuple[int, int]]] = ([], {})) -> str:
    """The instrumented file's first lines: the unit's tables for the runtime (``leaves``: the leaf
    call table and each caller's room for it, UnitCollector.leaf_table)."""
    template = _TEMPLATES.get_template("preamble.c.j2")
    return template.render(
        version=__version__,
        source=unit.source,
        source_c=c_string(line_name),
        descriptors=str(descriptors_path),
        descriptors_c=c_string(str(descriptors_path)),
        digest=unit.digest,
        functions=unit.functions,
        leaves=leaves[0],
        leaf_space=leaves[1],
    )
