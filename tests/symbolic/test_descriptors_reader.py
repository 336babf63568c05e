"""The one reader of descriptor files (perfeq.instrument.descriptors.read_descriptors), as the
symbolic stage uses it: what the instrumenter wrote reads back as the same frozen records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TESTS

from perfeq.errors import ModelError, UsageError
from perfeq.instrument.descriptors import BlockDescriptor, read_descriptors
from perfeq.instrument.instrumenter import instrument_file

SOURCES = sorted((TESTS / "c" / "symbolic").glob("*.c"))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_written_descriptors_read_back_the_same(source: Path, tmp_path: Path) -> None:
    result = instrument_file(source, tmp_path / source.name)
    unit = read_descriptors(result.descriptors_path)
    assert unit == result.descriptors
    assert all(isinstance(block, BlockDescriptor) for block in unit.blocks)


def test_subsets_unknown_fields_and_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "x.perfeq.json"
    data = {"format": "perfeq-descriptors", "version": 1, "source": "x.c", "comment": "by hand",
            "functions": [{"id": 0, "name": "main", "later": 1}],
            "blocks": [{"id": 0, "function": 0, "slot": None, "ops": {"total": 2}}]}
    path.write_text(json.dumps(data))
    unit = read_descriptors(path)
    assert unit.source == "x.c" and unit.digest is None and unit.loops == [] and unit.macros == {}
    assert unit.functions[0].name == "main" and unit.functions[0].returns is None
    assert unit.blocks[0].ops == {"total": 2} and unit.blocks[0].kind is None
    assert read_descriptors(path) is unit  # cached while the file does not change


@pytest.mark.parametrize(("content", "message"), [
    ("[1]", r"x\.json: not a perfeq-descriptors file"),
    ('{"format": "perfeq-descriptors", "version": 1, "loops": {}}', r"x\.json: 'loops' should be a list of objects"),
])
def test_errors_are_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(UsageError, match=message):
        read_descriptors(path)
    with pytest.raises(ModelError, match=r"missing\.json: descriptor file not found"):
        read_descriptors(tmp_path / "missing.json", error=ModelError, missing="descriptor file not found")
