"""Progress of long loops (perfeq/progress.py): a bar with the time left on a terminal, lines elsewhere."""

from __future__ import annotations

import io

from perfeq.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_a_bar_with_the_time_left_is_drawn_and_no_lines() -> None:
    said: list[str] = []
    stream = Terminal()
    with Progress(4, "calibrate", said.append, stream=stream) as progress:
        for k in range(4):
            progress.step(f"gauss n={k}: 0.1 s")
        progress.note("a note")
    text = stream.getvalue()
    assert said == [] and "calibrate: 100%" in text and "4/4" in text and "left]" in text
    assert "gauss n=3: 0.1 s" in text and "a note" in text


def test_elsewhere_one_line_per_step_and_no_bar() -> None:
    said: list[str] = []
    stream = io.StringIO()
    with Progress(2, "calibrate", said.append, stream=stream) as progress:
        progress.step("cg n=1: 0.2 s")
        progress.step("cg n=2: 0.4 s")
        progress.note("done")
    assert said == ["[  1/2] cg n=1: 0.2 s", "[  2/2] cg n=2: 0.4 s", "done"] and stream.getvalue() == ""
