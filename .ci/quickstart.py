"""Print line N (1-based) of the README's "Quick start" fenced sh block."""

import re
import sys
from pathlib import Path

text = (Path(__file__).resolve().parent.parent / "README.md").read_text()
section = text.split("## Quick start", 1)[1]
block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
lines = [line for line in block.splitlines() if line.strip()]
if len(lines) != 2:
    sys.exit(f"README quick start must hold exactly two commands, found {len(lines)}")
print(lines[int(sys.argv[1]) - 1])
