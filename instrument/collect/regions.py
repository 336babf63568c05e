"""OpenMP parallel regions and sections in one function's walk (stage 1, instrument/collect).

A mixin of :class:`~perfeq.instrument.collect.function.FunctionCollector`: ``#pragma omp parallel``
with its structured block, ``sections`` blocks, and the region descriptors (also those of combined
``parallel for`` loops, for loops.py).  Also the OpenMP pragma patterns the other modules test.
"""

from __future__ import annotations

import re

from pycparser import c_ast

from perfeq.instrument import descriptors as d
from perfeq.instrument import hooks
from perfeq.instrument.collect.walk import find
from perfeq.instrument.opcount import Scope

OMP_LOOP = re.compile(r"^\s*omp\s+(parallel\s+)?(for|do|simd|distribute|taskloop|loop)\b")
# a loop one thread runs in SIMD lanes (no worksharing): its iterations are not split over the team
OMP_SIMD = re.compile(r"^\s*omp\s+simd\b")
OMP_PARALLEL = re.compile(r"^\s*omp\s+(target\s+teams\s+)?parallel\b")
OMP_COLLAPSE = re.compile(r"collapse\s*\(\s*(\d+)\s*\)")
# a construct whose statement may run on a device (not the data directives, which run on the host)
OMP_TARGET = re.compile(r"^\s*omp\s+target\b(?!\s+(enter|exit|update|data)\b)")
# default(none): every variable the construct uses must be listed, the hooks' too
OMP_DEFAULT_NONE = re.compile(r"\bdefault\s*\(\s*none\s*\)")
# a sections construct's block may hold nothing but its sections: no code between them
OMP_SECTIONS = re.compile(r"^\s*omp\s+(parallel\s+)?sections\b")
# a task: its statement runs later, on whichever thread of the team takes it (not taskloop, taskwait,
# taskyield, taskgroup)
OMP_TASK = re.compile(r"^\s*omp\s+task\b")
# constructs whose statement one thread of the team runs
OMP_ONCE = re.compile(r"^\s*omp\s+(master|masked|single)\b")
# pragmas before a loop that are not bound to it: constructs applied to any structured block (the
# loop, or braces around it) and standalone directives
OMP_ANY_BLOCK = re.compile(r"^\s*omp\s+(single|master|masked|critical|ordered|task|taskgroup|atomic|barrier|"
                           r"flush|taskwait|taskyield)\b")


class Regions:
    """Parallel constructs: uses the core's blocks, slots, ``parallel`` depth and slab state."""

    def openmp_statement(self, node: c_ast.Node, depth: int, pragmas: list[c_ast.Pragma]) -> bool:
        """A statement under ``omp parallel`` (not combined with a loop: it runs on every thread) or
        ``omp sections``, walked as such; a statement under ``omp target`` left as written; False
        for any other statement."""
        target = next((p for p in pragmas if OMP_TARGET.match(p.string)), None)
        if target is not None:
            self.target_statement(node, target)
            return True
        parallel = [p for p in pragmas if OMP_PARALLEL.match(p.string) and not OMP_LOOP.match(p.string)]
        if parallel:
            self._ensure_block()
            before = self.block
            inner = [p for p in pragmas if p.coord.line > parallel[-1].coord.line]  # e.g. omp for
            end = self.region_statement(node, depth, parallel[-1], inner)
            if end is not None:
                self.end_block(end, node.coord.line, before)
            return True
        sections = [p for p in pragmas if OMP_SECTIONS.match(p.string)]
        if sections and isinstance(node, c_ast.Compound):  # omp sections inside a parallel region
            self._ensure_block()
            before = self.block
            open_ = self.u.tok(node, "{")
            if open_ is not None:
                end = self.sections_body(open_, node, depth, before.id if before else None, "team-section")
                self.end_block(self.src.tokens[end].end, node.coord.line, before)
                return True
        return False

    def target_statement(self, node: c_ast.Node, pragma: c_ast.Pragma) -> None:
        """The statement of ``#pragma omp target ...`` (offloaded: hooks there would use the host's
        thread-local state on the device, which compilers refuse, GCC's 'threadprivate variable used
        in target region', or write host memory from it): not instrumented, its operations counted
        once per execution of the construct in the current block, with a warning."""
        self._ensure_block()
        self.add_ops(self.counter().count(node), node)
        self.u.warn(pragma.coord.line, None, "an offloaded region (omp target) is not instrumented: its operations "
                    "are counted once per execution of the construct, not per iteration")

    def region_statement(self, node: c_ast.Node, depth: int, pragma: c_ast.Pragma,
                         inner: list[c_ast.Pragma]) -> int | None:
        """``#pragma omp parallel`` and its structured block: count the entry, walk it in parallel."""
        self._ensure_block()
        anchor = self.block_id
        first_pp = self.pragma_token(pragma)
        start = self.src._skip_pp(first_pp + 1) if first_pp is not None else None
        if first_pp is None or start is None:
            return None
        end = self.src.statement_end(start)
        region_id, hook = self.region(pragma, None)
        self.u.insert(self.src.tokens[first_pp].start, "{ " + hook, depth)
        self.u.insert(self.src.tokens[end].end, " }", depth, closing=True)
        self.regions.append(region_id)
        self.parallel += 1
        saved_slab = self._slab_active
        if (OMP_SECTIONS.match(pragma.string) and isinstance(node, c_ast.Compound)
                and self.src.tokens[start].text == "{"):
            # no room for the thread's slab before the first section: counters go through the runtime
            self._declare_slab = False
            self.sections_body(start, node, depth, anchor)
        elif isinstance(node, c_ast.Compound) and self.src.tokens[start].text == "{":
            self._declare_slab = not saved_slab
            self.sub_statement(start, node, "region", depth, anchor)
        else:  # a single statement (a loop, an if, ...): braced as the region's block, on every thread
            self._declare_slab = not saved_slab
            self.sub_statement(first_pp + 1, node, "region", depth, anchor, pragmas=inner)
        self._slab_active, self._declare_slab = saved_slab, False
        self.parallel -= 1
        self.regions.pop()
        return self.src.tokens[end].end

    def sections_body(self, open_: int, node: c_ast.Compound, depth: int, anchor: int | None,
                      kind: str = "section") -> int:
        """The block of ``omp sections``: each section is a body of its own (counted inside it),
        and nothing is inserted between the sections or before the first.  Its closing token.

        ``kind``: ``section`` for ``parallel sections`` (each section once per entry),
        ``team-section`` for ``sections`` run by a team (once per team, not once per thread)."""
        end = self.src.match_bracket(open_)
        saved = self.scope
        self.scope = Scope(saved)
        previous = open_
        pending: list[c_ast.Pragma] = []  # pragmas of the section's statement (omp parallel for, ...)
        for item in node.block_items or []:
            if isinstance(item, c_ast.Pragma):  # #pragma omp section stays before its statement
                if item.string.split()[:2] != ["omp", "section"]:
                    pending.append(item)
                continue
            first = self.pragma_token(pending[0]) if pending else None
            if first is None:
                first = self.src._skip_pp(previous + 1)
            previous, _ = self.sub_statement(first, item, kind, depth + 1, anchor, pragmas=pending)
            pending = []
        self.scope = saved
        self.block = None
        return end

    def region(self, pragma: c_ast.Pragma, loop: int | None) -> tuple[int, str]:
        """Describe a parallel region (``loop``: the loop of a combined construct); its id and the
        hook counting its entries (none inside another parallel construct)."""
        region_id = len(self.u.unit.regions)
        slot = self.slot()
        self.u.unit.regions.append(d.RegionDescriptor(
            id=region_id, function=self.index, line=pragma.coord.line, pragma=pragma.string.strip(), slot=slot,
            block=self.block_id, parent=self.regions[-1] if self.regions else None, loop=loop,
        ))
        sized = re.search(r"\b(num_threads|if)\s*\(", pragma.string) is not None
        return region_id, ("" if self.parallel else hooks.region(slot, team=not sized))

    def _including(self, before: int | None) -> int | None:
        """The ``#include`` line among the preprocessor lines right before token ``before``."""
        index = (before if before is not None else 0) - 1
        while before is not None and index >= 0 and self.src.tokens[index].kind == "pp":
            if re.match(r"#\s*include\b", self.src.tokens[index].text):
                return index
            index -= 1
        return None

    def share_hook_variables(self, body: c_ast.Node) -> None:
        """After ``default(none)`` in the function's OpenMP constructs: PERFEQ_SHARED, the clause
        listing the hooks' variables (right after it, so a comment ending the line stays after)."""
        for pragma in find(body, c_ast.Pragma):
            index = self.pragma_token(pragma) if pragma.string.split()[:1] == ["omp"] else None
            if index is None:
                continue
            token = self.src.tokens[index]
            match = OMP_DEFAULT_NONE.search(token.text)
            if match:
                self.u.insert(token.start + match.end(), f" {hooks.SHARED}")

    def pragma_token(self, pragma: c_ast.Pragma, before: int | None = None) -> int | None:
        """The token of the preprocessor line a pragma stands on; or, for a pragma a macro writes
        (``_Pragma`` in its body: HPGMG-FV's ``PRAGMA_THREAD_ACROSS_BLOCKS(level, b, nb)``), the
        macro's name where it is invoked first on the pragma's line.  A pragma of an included
        header (hypre's ``#include "hypre_smp_forloop.h"``, whose last line is ``#pragma omp
        parallel for ...``): the ``#include`` right before the token ``before`` (the statement it
        applies to), with only preprocessor lines between; None without ``before``."""
        if not self.u.in_main(pragma):
            return self._including(before)
        line = pragma.coord.line
        first = None
        for i, tok in enumerate(self.src.tokens):
            if tok.line == line:
                if tok.kind == "pp":
                    return i
                first = i if first is None else first
        if first is not None and self.u.writes_pragma(self.src.tokens[first].text):
            return first
        return None
