"""Files given where a runs CSV belongs (perfeq fit, perfeq validate): one line saying what they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import one_line_error

from perfeq.cli import main


@pytest.mark.parametrize(("content", "said"), [
    (json.dumps({"format": "perfeq-model", "version": 2, "items": []}, indent=1), "a perfeq-model file, not a runs CSV"),
    ('{"record":"header","format":"perfeq-trace","version":1}\n{"record":"footer"}\n',
     "a perfeq-trace file, not a runs CSV"),
    ("[1, 2]\n", "JSON, not a runs CSV"),
    (b"\x7fELF\x02\x01\xff\xfe", "not a runs CSV: byte 6 is not text"),
])
@pytest.mark.parametrize("command", [["fit"], ["validate", "-o", "{out}"]])
def test_not_a_runs_csv(tmp_path: Path, capsys, content: str | bytes, said: str, command: list[str]) -> None:
    path = tmp_path / "given"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    args = [part.format(out=tmp_path / "out") for part in command]
    assert main([args[0], str(path), *args[1:]]) == 2
    line = one_line_error(capsys)
    assert said in line and str(path) in line
    assert not (tmp_path / "out").exists()
