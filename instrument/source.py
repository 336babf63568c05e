"""The original C source as text and tokens, with positions (instrument stage, read-only).

pycparser sees only a preprocessed copy; the instrumented file is written by inserting text into
the *original* source.  This module maps AST coordinates (line, column) to offsets in the original
text and finds what the AST does not give: where a statement, a parenthesised list or a declaration
ends.  It tokenizes the original text (comments, strings and preprocessor lines skipped or kept as
single tokens) and drops the tokens of preprocessor branches that are inactive in this build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PUNCT = sorted(
    """... <<= >>= -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= |= ## # [ ] ( ) { } . & * + - ~ !
    / % < > ^ | ? : ; = , \\""".split(),
    key=len,
    reverse=True,
)
_TOKEN_RE = re.compile(
    r"""
    (?P<ws>(?:[ \t\r\f\v]|\\\r?\n)+)
  | (?P<nl>\n)
  | (?P<lcomment>//(?:\\\r?\n|[^\n])*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<string>(?:u8|u|U|L)?"(?:\\\r\n|\\.|[^"\\\n])*")
  | (?P<char>(?:u|U|L)?'(?:\\\r\n|\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.])*)
  | (?P<punct>"""
    + "|".join(re.escape(p) for p in _PUNCT)
    + r""")
    """,
    re.S | re.X,
)
_DIRECTIVE_RE = re.compile(r"[ \t]*#[ \t]*(\w*)")
_LINE_MARKER_RE = re.compile(r'#\s*(?:line\s+)?(\d+)\s+"((?:\\.|[^"\\])*)"')
_RESYNC_WINDOW = 3  # tokens that must agree after a macro invocation to resume the alignment


@dataclass(frozen=True)
class Token:
    kind: str  # ident, number, string, char, punct, pp (a whole preprocessor line)
    text: str
    start: int  # offset in the original text
    end: int
    line: int  # 1-based


class SourceError(Exception):
    """A structural surprise in the original text (unbalanced brackets, unexpected token)."""


class SourceText:
    """The original source: text, line offsets, tokens of the active build."""

    def __init__(self, path: str, text: str, active_lines: set[int] | None = None):
        self.path = path
        self.text = text
        self.line_starts = [0]
        for match in re.finditer("\n", text):
            self.line_starts.append(match.end())
        self.tokens = self._tokenize(active_lines)
        self._by_start = {tok.start: i for i, tok in enumerate(self.tokens)}
        self._from_preprocessed: dict[tuple[int, int], int] | None = None
        # a macro invocation's first and last original token, and the preprocessed tokens of its
        # expansion; and the expansion each preprocessed (line, column) inside one belongs to
        self._expansions: list[tuple[int, int, list[str]]] = []
        self._expansion_at: dict[tuple[int, int], int] = {}

    # ---- positions ------------------------------------------------------------------------
    def offset(self, line: int, column: int) -> int:
        return self.line_starts[line - 1] + column - 1

    def line_col(self, offset: int) -> tuple[int, int]:
        import bisect

        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def line_text(self, line: int) -> str:
        start = self.line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start : end if end >= 0 else len(self.text)]

    def token_at(self, line: int, column: int) -> int | None:
        """Index of the original token at a (line, column) of the preprocessed text, or None.

        After :meth:`align_preprocessed`, the position is looked up in the token alignment (the
        preprocessor collapses spaces and expands macros, so columns differ); before, it is taken
        as a position in the original text.
        """
        if self._from_preprocessed is not None:
            return self._from_preprocessed.get((line, column))
        if line < 1 or line > len(self.line_starts):
            return None
        return self._by_start.get(self.offset(line, column))

    # ---- the preprocessed text ------------------------------------------------------------
    def align_preprocessed(self, preprocessed: str, marker_name: str) -> None:
        """Map the main file's tokens in the preprocessed text to the original tokens.

        Equal tokens are matched in order.  Where they differ, the original has a macro
        invocation (a name, with its parenthesised arguments if any): the alignment resumes after
        it where the next few original tokens appear in the preprocessed text, and the first token
        of the expansion maps to the macro's name (so ``i < N`` has the bound ``N``).  Tokens
        inside an expansion map to nothing: hooks are never put inside a macro's arguments.
        """
        pre = _main_file_tokens(preprocessed, marker_name)
        orig = [i for i, tok in enumerate(self.tokens) if tok.kind != "pp"]
        pre_idents = {text for _, _, text in pre}
        mapping: dict[tuple[int, int], int] = {}
        i = j = 0
        while i < len(orig) and j < len(pre):
            tok = self.tokens[orig[i]]
            line, col, text = pre[j]
            if tok.text == text:
                mapping[(line, col)] = orig[i]
                i, j = i + 1, j + 1
                continue
            resumed = self._resume(orig, pre, i, j, pre_idents)
            if resumed is None:  # not a macro: skip to the next line both texts have
                i = next((k for k in range(i, len(orig)) if self.tokens[orig[k]].line > tok.line), len(orig))
                if i < len(orig):
                    j = next((k for k in range(j, len(pre)) if pre[k][0] >= self.tokens[orig[i]].line), len(pre))
                continue
            next_i, next_j = resumed
            if next_j > j and tok.kind == "ident":
                mapping[(line, col)] = orig[i]  # the expansion starts where the invocation does
                self._expansions.append((orig[i], orig[next_i - 1], [text for _, _, text in pre[j:next_j]]))
                for k in range(j, next_j):
                    self._expansion_at[pre[k][:2]] = len(self._expansions) - 1
            i, j = next_i, next_j
        self._from_preprocessed = mapping

    def expansion_text(self, line: int, column: int, generated: str) -> str | None:
        """The text of the macro invocation whose expansion holds the preprocessed position and is,
        parentheses aside, the expression ``generated``: ``M`` for ``2 * 64`` of ``#define M (2 * N)``."""
        found = self._expansion_at.get((line, column))
        if found is None:
            return None
        first, last, texts = self._expansions[found]
        if re.sub(r"\s+|[()]", "", generated) != "".join(texts).replace("(", "").replace(")", ""):
            return None
        return self.text_of(first, last)

    def expansion_extent(self, line: int, column: int) -> tuple[int, int] | None:
        """The first and last original tokens of the macro invocation whose expansion holds the
        preprocessed position; None outside one."""
        found = self._expansion_at.get((line, column))
        return None if found is None else self._expansions[found][:2]

    def expansion_prefix(self, line: int, column: int, generated: str) -> int | None:
        """The first token of the macro invocation whose expansion holds the preprocessed position and
        begins the expression ``generated`` (``MAX_KEY`` of ``MAX_KEY - 1``), parentheses aside; None
        when the position is in no expansion or the expression does not start with it."""
        found = self._expansion_at.get((line, column))
        if found is None:
            return None
        first, _, texts = self._expansions[found]
        expansion = "".join(texts).replace("(", "").replace(")", "")
        return first if expansion and re.sub(r"\s+|[()]", "", generated).startswith(expansion) else None

    def _invocation_end(self, orig: list[int], i: int) -> int:
        """Position in ``orig`` after the macro invocation starting at ``orig[i]``."""
        if i + 1 < len(orig) and self.tokens[orig[i + 1]].text == "(":
            depth = 0
            for k in range(i + 1, len(orig)):
                text = self.tokens[orig[k]].text
                depth += text == "("
                depth -= text == ")"
                if depth == 0:
                    return k + 1
        return i + 1

    def _resume(self, orig: list[int], pre: list[tuple[int, int, str]], i: int, j: int,
                pre_idents: set[str]) -> tuple[int, int] | None:
        """Where the alignment resumes after a mismatch at ``orig[i]`` / ``pre[j]``, or None."""
        if self.tokens[orig[i]].kind != "ident":
            return None
        ends = [self._invocation_end(orig, i)]
        if ends[0] != i + 1:
            ends.append(i + 1)  # an object-like macro followed by '('
        first_line = self.tokens[orig[i]].line
        for end in ends:
            # consecutive invocations (A B, F(x) G) expand as one run
            while end < len(orig) and self.tokens[orig[end]].kind == "ident" and \
                    self.tokens[orig[end]].text not in pre_idents:
                end = self._invocation_end(orig, end)
            if end >= len(orig):
                return end, len(pre)
            window = []
            for k in range(end, min(end + _RESYNC_WINDOW, len(orig))):
                tok = self.tokens[orig[k]]
                if tok.kind == "ident" and tok.text not in pre_idents:
                    break
                window.append(tok.text)
            last_line = self.tokens[orig[end]].line
            for k in range(j, len(pre)):
                line = pre[k][0]
                if line > last_line:
                    break
                if line >= first_line and all(
                    k + n < len(pre) and pre[k + n][2] == text for n, text in enumerate(window)
                ):
                    return end, k
        return None

    def index_at_or_after(self, offset: int) -> int:
        import bisect

        starts = [t.start for t in self.tokens]
        return bisect.bisect_left(starts, offset)

    # ---- tokens ---------------------------------------------------------------------------
    def _tokenize(self, active_lines: set[int] | None) -> list[Token]:
        text = self.text
        tokens: list[Token] = []
        pos, line, at_line_start = 0, 1, True
        inactive = self._inactive_lines(active_lines) if active_lines is not None else set()
        while pos < len(text):
            if at_line_start:
                directive = _DIRECTIVE_RE.match(text, pos)
                if directive:
                    end = pos
                    while True:  # a directive with its backslash continuations
                        nl = text.find("\n", end)
                        if nl < 0:
                            end = len(text)
                            break
                        if text[max(0, nl - 2) : nl].rstrip("\r").endswith("\\"):  # \ and LF or CRLF
                            end = nl + 1
                            continue
                        end = nl
                        break
                    if line not in inactive:
                        tokens.append(Token("pp", text[pos:end], pos, end, line))
                    line += text.count("\n", pos, end)
                    pos = end
                    at_line_start = False
                    continue
            match = _TOKEN_RE.match(text, pos)
            if not match:
                raise SourceError(f"{self.path}:{line}: cannot read character {text[pos]!r}")
            kind = match.lastgroup
            value = match.group()
            if kind == "nl":
                at_line_start = True
                line += 1
            elif kind in ("ws", "bcomment", "lcomment"):  # (a line splice, a comment continued by one)
                line += value.count("\n")
            else:
                at_line_start = False
                if line not in inactive:
                    tokens.append(Token(kind, value, match.start(), match.end(), line))
                line += value.count("\n")  # a string continued on the next line by a splice
            pos = match.end()
        return tokens

    def _inactive_lines(self, active_lines: set[int]) -> set[int]:
        """Lines inside #if branches that produced no preprocessed output (inactive in this build)."""
        lines = self.text.split("\n")
        inactive: set[int] = set()
        stack: list[list[int]] = []  # per open #if: the first line of the current branch
        branches: list[tuple[int, int]] = []
        for number, content in enumerate(lines, start=1):
            directive = _DIRECTIVE_RE.match(content)
            if not directive or not content.lstrip().startswith("#"):
                continue
            word = directive.group(1)
            if word in ("if", "ifdef", "ifndef"):
                stack.append([number + 1])
            elif word in ("elif", "else") and stack:
                branches.append((stack[-1][0], number - 1))
                stack[-1][0] = number + 1
            elif word == "endif" and stack:
                branches.append((stack[-1][0], number - 1))
                stack.pop()
        for first, last in branches:
            body = range(first, last + 1)
            if not any(n in active_lines for n in body):
                inactive.update(body)
        return inactive

    # ---- structure ------------------------------------------------------------------------
    def _skip_pp(self, i: int) -> int:
        while i < len(self.tokens) and self.tokens[i].kind == "pp":
            i += 1
        return i

    def expect(self, i: int, text: str) -> int:
        i = self._skip_pp(i)
        if i >= len(self.tokens) or self.tokens[i].text != text:
            found = self.tokens[i].text if i < len(self.tokens) else "end of file"
            line = self.tokens[min(i, len(self.tokens) - 1)].line
            raise SourceError(f"{self.path}:{line}: expected '{text}', found '{found}'")
        return i

    def match_bracket(self, i: int) -> int:
        """Index of the bracket closing the one at token i."""
        pairs = {"(": ")", "[": "]", "{": "}"}
        opening = self.tokens[i].text
        closing = pairs[opening]
        depth = 0
        for j in range(i, len(self.tokens)):
            text = self.tokens[j].text
            if text == opening:
                depth += 1
            elif text == closing:
                depth -= 1
                if depth == 0:
                    return j
        raise SourceError(f"{self.path}:{self.tokens[i].line}: unbalanced '{opening}'")

    def scan_to(self, i: int, stops: tuple[str, ...]) -> int:
        """Index of the first token in ``stops`` at bracket depth 0, from token i."""
        depth = 0
        for j in range(i, len(self.tokens)):
            tok = self.tokens[j]
            if tok.kind == "pp":
                continue
            if depth == 0 and tok.text in stops:
                return j
            if tok.text in "([{":
                depth += 1
            elif tok.text in ")]}":
                depth -= 1
                if depth < 0:
                    raise SourceError(f"{self.path}:{tok.line}: unexpected '{tok.text}'")
        raise SourceError(f"{self.path}:{self.tokens[i].line}: no {' or '.join(stops)} found")

    def statement_end(self, i: int) -> int:
        """Index of the last token of the statement starting at token i."""
        i = self._skip_pp(i)
        tok = self.tokens[i]
        word = tok.text
        if word == "{":
            return self.match_bracket(i)
        if word == "if":
            close = self.match_bracket(self.expect(i + 1, "("))
            end = self.statement_end(close + 1)
            nxt = self._skip_pp(end + 1)
            if nxt < len(self.tokens) and self.tokens[nxt].text == "else":
                return self.statement_end(nxt + 1)
            return end
        if word in ("for", "while", "switch"):
            close = self.match_bracket(self.expect(i + 1, "("))
            return self.statement_end(close + 1)
        if word == "do":
            end = self.statement_end(i + 1)
            w = self.expect(end + 1, "while")
            close = self.match_bracket(self.expect(w + 1, "("))
            return self.expect(close + 1, ";")
        if word in ("case", "default"):
            colon = self._label_colon(i)
            return self.statement_end(colon + 1)
        if tok.kind == "ident" and self._next_text(i) == ":":
            return self.statement_end(self._skip_pp(i + 1) + 1)
        macro_end = self._macro_statement_end(i)
        return macro_end if macro_end is not None else self.scan_to(i, (";",))

    def _macro_statement_end(self, i: int) -> int | None:
        """The closing parenthesis of ``NAME(...)`` at token i when a ``}`` or ``else`` follows it: a
        macro that expands to a whole statement, written without ``;`` (``if (c) ERR_EXIT(1)`` last
        in a block, Rodinia leukocyte's avilib.c); None otherwise."""
        if self.tokens[i].kind != "ident" or self._next_text(i) != "(":
            return None
        close = self.match_bracket(self._skip_pp(i + 1))
        after = self._skip_pp(close + 1)
        if after < len(self.tokens) and self.tokens[after].text in ("}", "else"):
            return close
        return None

    def _next_text(self, i: int) -> str | None:
        j = self._skip_pp(i + 1)
        return self.tokens[j].text if j < len(self.tokens) else None

    def _label_colon(self, i: int) -> int:
        depth, questions = 0, 0
        for j in range(i + 1, len(self.tokens)):
            text = self.tokens[j].text
            if text in "([{":
                depth += 1
            elif text in ")]}":
                depth -= 1
            elif depth == 0 and text == "?":
                questions += 1
            elif depth == 0 and text == ":":
                if questions == 0:
                    return j
                questions -= 1
        raise SourceError(f"{self.path}:{self.tokens[i].line}: no ':' after case label")

    def split_top(self, first: int, last: int, sep: str) -> list[tuple[int, int]]:
        """Split tokens first..last (inclusive) at ``sep`` on bracket depth 0: (first, last) pairs."""
        parts, depth, start = [], 0, first
        for j in range(first, last + 1):
            text = self.tokens[j].text
            if text in "([{":
                depth += 1
            elif text in ")]}":
                depth -= 1
            elif depth == 0 and text == sep:
                parts.append((start, j - 1))
                start = j + 1
        parts.append((start, last))
        return parts

    def text_of(self, first: int, last: int) -> str:
        """Original text of tokens first..last (inclusive); empty when last < first."""
        if last < first:
            return ""
        return " ".join(self.text[self.tokens[first].start : self.tokens[last].end].split())


def _main_file_tokens(preprocessed: str, marker_name: str) -> list[tuple[int, int, str]]:
    """(line, column, text) of the tokens the main file contributes to a preprocessed text.

    Lines and columns are those pycparser reports: lines follow the line markers, columns count
    characters from 1.  Directives left in the output (#pragma) are skipped.
    """
    tokens: list[tuple[int, int, str]] = []
    current, line = None, 0
    for raw in preprocessed.split("\n"):
        stripped = raw.lstrip()
        if stripped.startswith("#"):
            marker = _LINE_MARKER_RE.match(stripped)
            if marker:
                line, current = int(marker.group(1)), marker.group(2)
                continue
        elif current == marker_name and stripped:
            pos = 0
            while pos < len(raw):
                match = _TOKEN_RE.match(raw, pos)
                if not match:
                    pos += 1
                    continue
                if match.lastgroup not in ("ws", "nl", "lcomment", "bcomment"):
                    tokens.append((line, match.start() + 1, match.group()))
                pos = match.end()
        line += 1
    return tokens
