"""The plan of one loop, read before anything is inserted (stage 1, instrument/collect).

:meth:`LoopPlanning.plan_loop` changes nothing: a frozen :class:`LoopPlan` (header, the form
``var op bound`` with its stride, flags, warnings, which hooks go where) that loops.py carries out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from perfeq.instrument import hooks
from perfeq.instrument.collect.regions import OMP_ANY_BLOCK, OMP_COLLAPSE, OMP_LOOP, OMP_PARALLEL, OMP_SIMD
from perfeq.instrument.collect.walk import INCREMENTS, direct_value, find, generate, is_id, names, walk
from perfeq.instrument.opcount import ZERO, OpCount, OpCounter, Scope, type_of_decl
from perfeq.instrument.source import SourceError

_RELATIONS = ("<", "<=", ">", ">=", "!=")
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


@dataclass(frozen=True)
class LoopHeader:
    """Where a loop's parts stand in the tokens, their original text and their operations."""

    end: int  # the loop statement's last token
    body_first: int
    cond_first: int  # the condition's tokens
    cond_last: int
    init: str | None  # for loops only: the initialization and the step
    cond: str
    step: str | None
    ops_init: OpCount  # once per entry
    ops_cond: OpCount  # once per test
    ops_step: OpCount  # once per iteration


@dataclass(frozen=True)
class LoopForm:
    """The loop read as ``for (var = init; var op bound; var += stride)``, as far as it is one."""

    var: str | None = None
    init: str | None = None
    op: str | None = None
    bound: str | None = None
    stride: str | None = None  # "1", "-1", "s", "-(s)"; "*=2", "<<=1", ... for geometric steps
    depends: tuple[str, ...] = ()  # names init, bound and stride refer to, sorted
    # (name, init, stride) of other variables the header sets and steps with var (n in
    # ``for (ng = nn, n = 0; ng < e; n++, ng++)``), none of them changed in the body
    inductions: tuple[tuple[str, str, str], ...] = ()
    # a while loop whose body steps var once per iteration (``while (nn < n) { nn <<= 1; lg++; }``):
    # init is var itself, its value at entry
    stepped_in_body: bool = False


@dataclass(frozen=True)
class Trips:
    """Iterations counted once per entry from the bounds (PERFEQ_TRIPS_*), not once per iteration."""

    relation: str
    first: str
    bound: str
    step: int
    where: str  # hooks.SERIAL or hooks.SLAB


@dataclass(frozen=True)
class LoopPlan:
    kind: str  # for, while, do
    header: LoopHeader
    form: LoopForm
    flags: tuple[str, ...]  # var-modified, data-dependent, goto, collapsed
    warnings: tuple[str, ...]  # to issue at the loop's coordinate, in order
    worksharing: bool  # under an OpenMP loop construct
    collapse: int
    parallel_pragma: c_ast.Pragma | None  # a combined parallel loop construct: a region too
    # the hooks: the loop is braced from wrap_start (its first pragma) to its end, its entry counted
    # there (entry_where None: PERFEQ_LOOP_ENTER in serial code), with the values recorded at entry
    wrap_start: int
    entry_where: str | None
    values: tuple[tuple[str, str, int | None], ...]  # (init | bound, text, hoisted to loop_frames[i] or None)
    predicted: bool  # the condition has a branch predictor (PERFEQ_BRANCH)
    # ... told once per entry at the exit (PERFEQ_EXIT_*) instead of at every test: a for or while
    # loop that nothing leaves early, so that its tests were the body's runs taken and one not
    exit_predicted: bool
    # the if by which a search loop leaves early and its exit (exit_guard): its tests told to its
    # predictor when it is taken or at the loop's exit (PERFEQ_GUARD_*), not at every test
    guard: tuple[c_ast.If, c_ast.Node] | None
    header_calls: bool  # calls in the header are announced (not under an OpenMP pragma)
    trips: Trips | None  # counted from the bounds: the body block gets no counter


class LoopPlanning:
    """Plans a loop: uses the core's scope, source, parallel state and the unit's facts; changes nothing."""

    def loop_scope(self, node: c_ast.Node, kind: str) -> Scope:
        """The loop's own scope: a for's declarations are visible in its header and body only, and
        an accumulation in its condition or step (s += h) is carried from one iteration to the next."""
        scope = Scope(self.scope)
        if kind == "for" and isinstance(node.init, c_ast.DeclList):
            for decl in node.init.decls:
                scope.names[decl.name] = type_of_decl(decl.type, self.u.typedefs)
        return scope

    def plan_loop(self, node: c_ast.Node, kind: str, start: int, pragmas: list[c_ast.Pragma]) -> LoopPlan:
        """The plan of the loop whose keyword is token ``start``, in its own scope (self.scope)."""
        counter = self.counter()  # the initialization runs once per entry: in the enclosing loop
        loop_pragmas = [p for p in pragmas if OMP_LOOP.match(p.string)]
        match = OMP_COLLAPSE.search(loop_pragmas[-1].string) if loop_pragmas else None
        # worksharing constructs; omp simd alone splits nothing over the threads (Rodinia lud's inner
        # loops under a parallel for: their iterations were divided by T twice, -44 % on 2 threads)
        omp = [p for p in loop_pragmas if not OMP_SIMD.match(p.string)]
        header = self.loop_header(node, kind, start, counter)
        form = self.loop_form(node, kind)
        flags, warnings = _loop_flags(node, kind, form, self.has_goto)
        under_omp = any(p.string.split()[:1] == ["omp"] for p in pragmas)  # its header must stay canonical
        evaluable = []  # init and bound can be evaluated before the loop without side effects
        recorded = []  # those worth recording at each entry: not constants (no names once preprocessed)
        init_names = _assigned_names(node.init) if kind == "for" else set()
        for key, text, expr in (("init", form.init, _init_expr(node, form.var)), ("bound", form.bound, _bound_expr(node))):
            if text and expr is not None and _safe_to_evaluate(expr, counter) and not (names(expr) & init_names):
                evaluable.append((key, text))
                # not in a leaf function for a value of its parameters alone: those resolve through
                # each call's arguments, and a leaf called per pair of a hot loop paid two records a
                # call (ljmd's pbc(x, boxby2): 3.4x -> see FAILURES 176)
                if names(expr) - self.u.enumerators() and not (self.leaf and names(expr) <= set(self.params)):
                    recorded.append((key, text, expr))
        # a combined parallel loop in serial code (#pragma omp parallel for) is counted there, once for
        # all threads (the trace sums the threads' counts): no counter, no slab lookup per iteration
        combined = (bool(omp) and OMP_PARALLEL.match(omp[-1].string) is not None and not self.parallel
                    and not (match and int(match.group(1)) > 1))
        trips = self.loop_trips(node, kind, form, len(evaluable) == 2 and (not omp or combined) and not flags)
        # how predictable its exits are (a loop that runs a few times, differently each time,
        # mispredicts its exit; one that runs alike, or long, hardly): as for an if.  Not under an
        # OpenMP pragma (its condition must stay canonical), not for a constant condition (while (1):
        # the compiler must still see an endless loop)
        predicted = ("data-dependent" in flags and "wait" not in flags and not under_omp and bool(names(node.cond))
                     and not self.waiting)
        return LoopPlan(
            kind=kind, header=header, form=form,
            flags=tuple(flags) + (("collapsed",) if match and int(match.group(1)) > 1 else ()),
            warnings=tuple(warnings), worksharing=bool(omp), collapse=int(match.group(1)) if match else 1,
            parallel_pragma=omp[-1] if omp and OMP_PARALLEL.match(omp[-1].string) else None,
            wrap_start=self.loop_wrap_start(start, pragmas),
            entry_where=self.where if self.parallel else None,
            values=tuple((key, text, self.hoisted_entry(expr)) for key, text, expr in recorded)
            if not self.parallel and (not omp or combined) else (),
            predicted=predicted,
            exit_predicted=predicted and kind in ("for", "while") and not _exits_early(node.stmt, self.u.stoppers)
            and not _calls(node.stmt, self.name),
            guard=None if omp or self.waiting or _calls(node.stmt, self.name) else exit_guard(node.stmt, self.u.stoppers),
            header_calls=not under_omp, trips=trips,
        )

    def hoisted_entry(self, expr: c_ast.Node) -> int | None:
        """The outermost enclosing loop (an index of loop_frames) at whose entry ``expr`` has the
        value it has at every entry of this loop, so that it is recorded there, once, and not at
        each entry of an inner loop (an opaque call in a loop nest stops the compiler's
        optimisations of it).  Only arithmetic of locals, parameters and globals, none assigned in
        that loop or its address taken in the function (globals: no call in that loop either)."""
        if any(isinstance(n, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall)) or
               (isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&")) for n in walk(expr)):
            return None
        idents = names(expr) - self.u.enumerators()
        if not idents or idents & self.address_taken():
            return None
        owners = [self.scope.owner(name) for name in idents]
        if any(owner is None for owner in owners):
            return None
        hoisted = None
        for index in range(len(self.loop_frames) - 1, -1, -1):
            node, _, _, scope = self.loop_frames[index]
            if idents & _assigned_names(node) or not all(owner.encloses(scope.parent) for owner in owners):
                break
            if any(owner is self.u.globals for owner in owners) and any(True for _ in find(node, c_ast.FuncCall)):
                break
            hoisted = index
        return hoisted

    def address_taken(self) -> set[str]:
        """The variables whose address the function takes (``&n``): a callee may change them."""
        if self._address_taken is None:
            self._address_taken = {n.expr.name for n in find(self.funcdef.body, c_ast.UnaryOp)
                                   if n.op == "&" and isinstance(n.expr, c_ast.ID)}
        return self._address_taken

    def loop_header(self, node: c_ast.Node, kind: str, start: int, counter: OpCounter) -> LoopHeader:
        """The header's tokens, text and operations (SourceError if it is not where expected)."""
        src = self.src
        end = src.statement_end(start)
        per_test = OpCounter(self.scope, self.u.fields, self.u.typedefs, self.scope, self.loop_memory(node).invariant)
        init_text = step_text = None
        ops_init = ops_step = ZERO
        if kind == "for":
            open_ = src.expect(start + 1, "(")
            close = src.match_bracket(open_)
            (i0, i1), (c0, c1), (s0, s1) = src.split_top(open_ + 1, close - 1, ";")
            init_text, step_text = src.text_of(i0, i1), src.text_of(s0, s1)
            body_first = close + 1
            ops_init = counter.count(node.init)
            ops_step = per_test.count(node.next)
        elif kind == "while":
            open_ = src.expect(start + 1, "(")
            close = src.match_bracket(open_)
            body_first, c0, c1 = close + 1, open_ + 1, close - 1
        else:  # do
            body_first = start + 1
            w = src.expect(src.statement_end(body_first) + 1, "while")
            open_ = src.expect(w + 1, "(")
            close = src.match_bracket(open_)
            c0, c1 = open_ + 1, close - 1
        return LoopHeader(end=end, body_first=body_first, cond_first=c0, cond_last=c1, init=init_text,
                          cond=src.text_of(c0, c1), step=step_text, ops_init=ops_init,
                          ops_cond=per_test.count(node.cond), ops_step=ops_step)

    def loop_form(self, node: c_ast.Node, kind: str) -> LoopForm:
        """Iteration variable, initial value, relational operator, bound, stride and names used."""
        var = init_value = op = bound = stride = None
        depends: set[str] = set()
        cond = loop_test(node)
        squared = _squared(cond)
        if squared is not None:  # v * v <= b: v <= isqrt(b) (a sieve's for (i = 2; i * i <= n; i++))
            var, op, other = squared
            text = self.text_or_generated(other)
            bound = f"{ISQRT}({text})" if op == "<=" else f"{ISQRT}(({text}) - 1)"
            op = "<="
            depends |= names(other)
        elif isinstance(cond, c_ast.BinaryOp) and cond.op in _RELATIONS:
            other = None
            if isinstance(cond.left, c_ast.ID):
                var, op, other = cond.left.name, cond.op, cond.right
            elif isinstance(cond.right, c_ast.ID):
                var, op, other = cond.right.name, _FLIPPED[cond.op], cond.left
            if other is not None:
                bound = self.text_or_generated(other)
                depends |= names(other)
        paired = None
        if kind == "for" and var is not None:
            init = _init_expr(node, var)
            if init is not None:
                init_value = self.text_or_generated(init)
                depends |= names(init)
            elif node.init is None or var not in _assigned_names(node.init):
                # for (; i < n; i++), for (i; ...): i goes on from the value it has on entry (a
                # remainder loop after an unrolled one), resolved where the loop stands, as a
                # while loop's
                init_value = var
            stride, used = self.loop_stride(node.next, var)
            depends |= used
            paired = _paired(node)
            if paired is not None and stride and re.fullmatch(r"-?\d+", stride):
                # for (i = 0, j = n - 1; i < j; i++, j--): i runs toward j's first value at the
                # difference of their strides
                start, other_stride = paired
                bound, stride = self.text_or_generated(start), str(int(stride) - other_stride)
                depends = (depends | names(start)) - {_condition_bound(node).name}
        stepped = False
        if kind == "while" and var is not None and bound is not None:
            step = _body_step(node.stmt, var, self.u.stoppers)
            if step is not None:
                stride, used = self.loop_stride(step, var)
                if stride is not None and not (used & _assigned_names(node.stmt)):
                    init_value, stepped = var, True
                    depends |= used
        depends.discard(var)
        # (not for a pair running toward each other: the stride is then that of their distance)
        inductions = self.loop_inductions(node, var) if kind == "for" and stride and paired is None else ()
        return LoopForm(var=var, init=init_value, op=op, bound=bound, stride=stride, depends=tuple(sorted(depends)),
                        inductions=inductions, stepped_in_body=stepped)

    def loop_inductions(self, node: c_ast.For, var: str) -> tuple[tuple[str, str, str], ...]:
        """The other variables of a for's header that start in its initialization and move by a
        constant amount in its step, each once, and that its body leaves alone (ParRes Kernels'
        tile loops ``for (kg = kk, k = 0; kg < MIN(kk + nb, K); k++, kg++)``): (name, first value,
        stride) in C text."""
        if not isinstance(node.next, c_ast.ExprList):
            return ()
        found = []
        body = _assigned_names(node.stmt)
        for part in node.next.exprs:
            changed = _assigned_names(part)
            if len(changed) != 1 or var in changed:
                continue
            (name,) = changed
            stride, used = self.loop_stride(part, name)
            init = _init_expr(node, name)
            if (stride is None or stride.startswith(("*=", "/=", "<<=", ">>=")) or init is None or name in body
                    or sum(name in _assigned_names(p) for p in node.next.exprs) != 1 or used & (body | {var, name})):
                continue
            found.append((name, self.text_or_generated(init), stride))
        return tuple(found)

    def loop_stride(self, step: c_ast.Node | None, var: str) -> tuple[str | None, set[str]]:
        """What the step adds to ``var`` per iteration (see LoopForm.stride), and the names it uses;
        in a comma list (``i++, j--``), the one part that changes ``var``."""
        if isinstance(step, c_ast.ExprList):
            parts = [e for e in step.exprs if var in _assigned_names(e)]
            return self.loop_stride(parts[0], var) if len(parts) == 1 else (None, set())
        if isinstance(step, c_ast.UnaryOp) and step.op in ("++", "p++") and is_id(step.expr, var):
            return "1", set()
        if isinstance(step, c_ast.UnaryOp) and step.op in ("--", "p--") and is_id(step.expr, var):
            return "-1", set()
        if not (isinstance(step, c_ast.Assignment) and is_id(step.lvalue, var)):
            return None, set()
        rvalue = step.rvalue
        if step.op in ("+=", "-="):
            text = self.text_or_generated(rvalue)
            return (text if step.op == "+=" else f"-({text})"), names(rvalue)
        if step.op == "=" and isinstance(rvalue, c_ast.BinaryOp) and rvalue.op in "+-" and is_id(rvalue.left, var):
            text = self.text_or_generated(rvalue.right)
            return (text if rvalue.op == "+" else f"-({text})"), names(rvalue.right)
        if step.op == "=" and isinstance(rvalue, c_ast.BinaryOp) and rvalue.op in "*/" and (
                is_id(rvalue.left, var) or (rvalue.op == "*" and is_id(rvalue.right, var))):
            other = rvalue.right if is_id(rvalue.left, var) else rvalue.left
            return f"{rvalue.op}={self.text_or_generated(other)}", names(other)
        if step.op == "=" and isinstance(rvalue, c_ast.BinaryOp) and rvalue.op in ("<<", ">>") and is_id(rvalue.left, var):
            return f"{rvalue.op}={self.text_or_generated(rvalue.right)}", names(rvalue.right)
        if step.op in ("*=", "<<=", ">>=", "/="):
            return f"{step.op}{self.text_or_generated(rvalue)}", set()
        return None, set()

    def loop_trips(self, node: c_ast.Node, kind: str, form: LoopForm, canonical: bool) -> Trips | None:
        """Trips when the iterations follow from init, bound and an integer stride at entry:
        ``canonical`` (both evaluable, no OpenMP loop construct, no flags), an integer variable
        neither the body nor an early exit disturbs, and a stride toward the bound."""
        op, stride = form.op, form.stride
        if not (kind == "for" and canonical and op in hooks.TRIPS and stride
                and (not self.parallel or self._slab_active)
                and re.fullmatch(r"-?\d+", stride) and (int(stride) > 0) == (op in ("<", "<="))
                and not _exits_early(node.stmt, self.u.stoppers)
                and not (names(_bound_expr(node)) & _assigned_names(node.stmt))
                and self.scope.lookup(form.var) is not None and not self.scope.lookup(form.var).floating):
            return None
        return Trips(relation=op, first=form.init, bound=form.bound, step=int(stride), where=self.where)

    def loop_wrap_start(self, start: int, pragmas: list[c_ast.Pragma]) -> int:
        """Where the loop's braces open: before the pragmas that must stand right before the loop
        (``omp for``, ``omp simd``, ``GCC unroll`` ...), else before its keyword.  The pragmas of
        constructs that take any structured block (``omp single``, ``omp master``, ``omp critical``)
        and the standalone ones before them (``omp barrier``) stay outside: the braces, with the
        loop's hooks, are then their block, so the hooks run on the thread that runs the loop."""
        wrap_start = self.src.tokens[start].start
        attached = pragmas
        while attached and OMP_ANY_BLOCK.match(attached[0].string):
            attached = attached[1:]
        if attached:
            pragma_tok = self.u.tok(attached[0])
            first_pp = self.pragma_token(attached[0], before=start) if pragma_tok is None else pragma_tok
            if first_pp is not None:
                wrap_start = self.src.tokens[first_pp].start
        return wrap_start

    def _expression_start(self, node: c_ast.Node, start: int) -> int:
        """The first token of ``node`` from the token at its coordinate: back over its prefix
        operators (innermost first) and the parentheses between them and their operands."""
        tokens = self.src.tokens
        for op in reversed(_prefix_operators(node)):
            i = start - 1
            while i >= 0 and tokens[i].text == "(":
                i -= 1
            if i < 0 or tokens[i].text != op:
                return start  # not as expected: the text is checked against the tree below
            start = i
        return start

    def text_or_generated(self, node: c_ast.Node) -> str:
        return self.expr_text(node) or generate(node)

    def expr_text(self, node: c_ast.Node) -> str | None:
        """Original text of an expression node, when its extent can be found reliably."""
        start = self.u.tok(node)
        generated = generate(node)
        if start is None:  # within a macro's expansion: the invocation when it is the whole expression,
            if not self.u.in_main(node):  # else the text from it when it begins the expression
                return None
            line, column = node.coord.line, node.coord.column
            whole = self.src.expansion_text(line, column, generated)
            if whole is not None:
                return whole
            start = self.src.expansion_prefix(line, column, generated)
            if start is None:
                return None
        else:
            start = self._expression_start(node, start)
        # extend token by token until the generated text (macros expanded) matches the original
        # text with spaces removed; stop at the first depth-0 delimiter
        try:
            stop = self.src.scan_to(start, (";", ",", ")", "]", "?", ":", "<", ">", "<=", ">=", "==", "!=",
                                            "&&", "||", "="))
        except SourceError:
            return None
        text = self.src.text_of(start, stop - 1)
        if _squash(text) == _squash(generated) or not _has_macro_free_mismatch(text, generated):
            return text
        return None


def _prefix_operators(node: c_ast.Node) -> list[str]:
    """The prefix operators on an expression's leftmost path, outermost first (pycparser puts their
    coordinate at their operand: ``-R`` at ``R``, ``-(R + 1)`` at ``R``)."""
    found = []
    while True:
        if isinstance(node, c_ast.UnaryOp) and node.op not in ("p++", "p--"):
            found.append(node.op)
            node = node.expr
        elif isinstance(node, c_ast.UnaryOp):
            node = node.expr
        elif isinstance(node, c_ast.BinaryOp):
            node = node.left
        elif isinstance(node, c_ast.TernaryOp):
            node = node.cond
        elif isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
            node = node.name
        else:
            return found


def _loop_flags(node: c_ast.Node, kind: str, form: LoopForm, has_goto: bool) -> tuple[list[str], list[str]]:
    """The loop's flags (but collapsed) and the warnings they come with."""
    flags, warnings = [], []
    var = form.var
    if var and _assigns(node.stmt, var) and not form.stepped_in_body:
        flags.append("var-modified")
        warnings.append(f"loop variable '{var}' is modified in the loop body; its trip count will be fitted")
    if var is None or form.bound is None or _data_dependent(loop_test(node)):
        flags.append("data-dependent")
        if kind != "for" or var is None:
            warnings.append(f"data-dependent {kind} loop: its trip count will be fitted to the problem size")
    if has_goto and any(True for _ in find(node.stmt, c_ast.Goto, c_ast.Label)):
        flags.append("goto")
        warnings.append("goto is not supported; this loop is modeled as measured (fit or constant)")
    spins = "data-dependent" in flags and spin_wait(node.stmt)
    if spins or ("data-dependent" in flags and polls_until(node)):
        flags.append("wait")
        if warnings and warnings[-1].startswith("data-dependent"):
            warnings.pop()
        if spins:
            warnings.append(f"{kind} loop waits for another thread or process (it only polls): its iterations "
                            "are waiting time, not work, and count no operations")
        else:
            warnings.append(f"{kind} loop waits for an MPI request or message (its condition is the flag of an "
                            "MPI test or probe in its body): its iterations are waiting time and count no "
                            "operations; the functions it calls count theirs")
    return flags, warnings


# The MPI completion tests and probes, each with the argument that receives its flag (for
# MPI_Testsome, the number of requests completed): a test of it says whether a request completed
# or a message arrived, which is the waiting's timing, not the problem's (CondDescriptor.polled,
# polls_until).
_POLL_FLAG = {"MPI_Test": 1, "MPI_Testany": 3, "MPI_Testall": 2, "MPI_Testsome": 2, "MPI_Iprobe": 3,
              "MPI_Improbe": 3}
# what a waiting loop polls with: an OpenMP flush or atomic read, an MPI completion test or probe
_POLL_PRAGMA = re.compile(r"^\s*omp\s+(flush\b|atomic\b.*\bread\b)")
_POLL_CALLS = (*_POLL_FLAG, "sched_yield")


def poll_flag(name: str, args: list[str]) -> str | None:
    """The variable an MPI test or probe call ``name(args)`` (argument texts) sets its flag in
    (``&flag``, or a pointer ``flag``), or None."""
    index = _POLL_FLAG.get(name)
    if index is None or index >= len(args):
        return None
    text = args[index].strip()
    text = text[1:].strip() if text.startswith("&") else text
    return text if re.fullmatch(r"[A-Za-z_]\w*", text) else None


def polls_until(node: c_ast.Node) -> bool:
    """Whether a loop waits for a request or message while it calls functions: its body is calls
    (an MPI test or probe among them, whose flag its condition reads), declarations, empty
    statements and ``if (...) break;`` (graph500's ``while (flag == 0) { MPI_Test(&hndl, &flag,
    MPI_STATUS_IGNORE); aml_poll_intra(); }``).  Like spin_wait's, its iterations are the time it
    waits; what the functions it calls do is counted in their contexts."""
    flags: set[str] = set()
    return _polls_only(node.stmt, flags) and bool(flags & names(loop_test(node)))


def _polls_only(body: c_ast.Node | None, flags: set[str]) -> bool:
    """Whether ``body`` (a polling loop's body or a branch in it) is calls, the flags of its MPI
    tests and probes added to ``flags``, scalar bookkeeping (``t = MPI_Wtime();``, ``polls++``),
    ``break``, and ifs on conditions without calls whose branches are such bodies: mpiGraph's
    ``while (!fs || !fr) { if (!fs) { MPI_Testall(..., &fs, ...); if (fs) t_send = MPI_Wtime(); }
    if (!fr) { ... } }``, besides declarations and empty statements (:func:`_waits_only`)."""
    if body is None:
        return True
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    for item in items:
        if isinstance(item, c_ast.FuncCall) and isinstance(item.name, c_ast.ID):
            args = [generate(arg) for arg in (item.args.exprs if item.args is not None else [])]
            flag = poll_flag(item.name.name, args)
            if flag is not None:
                flags.add(flag)
        elif isinstance(item, c_ast.If):
            if not _plain(item.cond) or not (_polls_only(item.iftrue, flags) and _polls_only(item.iffalse, flags)):
                return False
        elif not (isinstance(item, c_ast.Break) or _bookkeeping(item) or _waits_only(item)):
            return False
    return True


def _plain(cond: c_ast.Node) -> bool:
    """A condition a waiting loop may test: no call, no assignment."""
    return not any(isinstance(n, (c_ast.FuncCall, c_ast.Assignment)) for n in walk(cond))


def _bookkeeping(item: c_ast.Node) -> bool:
    """``t = MPI_Wtime();``, ``done = 1;``, ``polls++``: a plain variable set to a call's result or
    to an expression that reads no array or pointer, or counted up or down."""
    if isinstance(item, c_ast.UnaryOp):
        return item.op in ("p++", "p--", "++", "--") and isinstance(item.expr, c_ast.ID)
    if not (isinstance(item, c_ast.Assignment) and isinstance(item.lvalue, c_ast.ID)):
        return False
    if isinstance(item.rvalue, c_ast.FuncCall):
        return True
    return not any(isinstance(n, (c_ast.FuncCall, c_ast.ArrayRef, c_ast.StructRef, c_ast.Assignment))
                   or (isinstance(n, c_ast.UnaryOp) and n.op == "*") for n in walk(item.rvalue))


def _waits_only(item: c_ast.Node) -> bool:
    """A statement a waiting loop's body may hold besides its polls: ``if (...) break;`` (a
    condition without calls or assignments), a declaration without a call, an empty statement."""
    if isinstance(item, c_ast.If):
        return all(isinstance(b, (c_ast.Break, c_ast.EmptyStatement)) or b is None
                   for b in (item.iftrue, item.iffalse)) and _plain(item.cond)
    if isinstance(item, c_ast.Decl):
        return item.init is None or not any(isinstance(n, c_ast.FuncCall) for n in walk(item.init))
    return isinstance(item, c_ast.EmptyStatement)


def spin_wait(body: c_ast.Node | None) -> bool:
    """Whether a loop body only polls: an OpenMP ``flush`` or ``atomic read`` (into a variable the
    body declares), or an MPI completion test or probe, besides declarations, empty statements and
    ``if (...) break;`` (NPB LU's ``while (flag[i-1] == 0) { #pragma omp flush(flag) }``, the PRK
    wavefront's ``while (1) { #pragma omp atomic read ... if (f == true) break; }``,
    ``while (!done) MPI_Test(&req, &done, ...);``).  Its iterations are the time it waits, which
    depends on other threads or processes, not on the problem size."""
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    declared = {item.name for item in items if isinstance(item, c_ast.Decl)}
    polls = False
    for item in items:
        if isinstance(item, c_ast.Pragma):
            if not _POLL_PRAGMA.match(item.string):
                return False
            polls = True
        elif isinstance(item, c_ast.FuncCall) and isinstance(item.name, c_ast.ID) and item.name.name in _POLL_CALLS:
            polls = True
        elif isinstance(item, c_ast.Assignment):
            if not (item.op == "=" and isinstance(item.lvalue, c_ast.ID) and item.lvalue.name in declared
                    and not any(isinstance(n, c_ast.FuncCall) for n in walk(item.rvalue))):
                return False
        elif not _waits_only(item):
            return False
    return polls


def _body_step(body: c_ast.Node | None, var: str, stoppers: set[str]) -> c_ast.Node | None:
    """The statement of a while loop's body that steps ``var``, when it is the body's only change
    of ``var``, runs once per iteration (a statement of the body itself, not under a condition or
    in an inner loop, no ``continue`` of this loop) and nothing else in the body reads ``var``
    unless it is the last statement (the iterations then see the values a for loop with that step
    would give them); with something leaving the loop early (a convergence test's ``break``), only
    as its last statement: the loop is then ``for (; var < bound; step)`` with that exit, whose
    header caps its fitted trips (a 2-D Poisson solver's ``while (count < MAX_ITERS) { ...; if
    (diff < ERR) break; count++; }`` ran 2000 sweeps where the fit said 11000).  None otherwise."""
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    steps = [item for item in items if _assigns(item, var)]
    if len(steps) != 1 or _continues(body):
        return None
    step = steps[0]
    if not isinstance(step, (c_ast.Assignment, c_ast.UnaryOp)):
        return None
    if _exits_early(body, stoppers) and step is not items[-1]:
        return None
    others = [item for item in items if item is not step and var in names(item)]
    if others and step is not items[-1]:
        return None
    return step


def _continues(node: c_ast.Node | None, nested: bool = False) -> bool:
    """Whether the code holds a ``continue`` of the loop it is the body of."""
    if node is None:
        return False
    if isinstance(node, c_ast.Continue):
        return not nested
    inner = nested or isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile))
    return any(_continues(child, inner) for child in node)


def _exits_early(node: c_ast.Node | None, stoppers: set[str]) -> bool:
    """Whether a loop body can leave the loop before its condition fails (break of this loop,
    return, goto, a call of a function in ``stoppers``), so that its iterations cannot be computed
    from the bounds at entry."""
    return next(_early_exits(node, stoppers), None) is not None


def _early_exits(node: c_ast.Node | None, stoppers: set[str], nested: bool = False):
    """The statements and calls by which a loop body can leave the loop early (see _exits_early)."""
    if node is None:
        return
    if isinstance(node, (c_ast.Return, c_ast.Goto, c_ast.Label)):
        yield node
        if isinstance(node, c_ast.Label):
            return
    if isinstance(node, c_ast.Break) and not nested:
        yield node
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in stoppers:
        yield node
    inner = nested or isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch))
    for child in node:
        yield from _early_exits(child, stoppers, inner)


def exit_guard(body: c_ast.Node | None, stoppers: set[str]) -> tuple[c_ast.If, c_ast.Node] | None:
    """The if by which a search loop leaves early, and its exit: ``if (cdf[i] >= u) { ...; break; }``
    (or ``return``) as a statement of the body itself, without else, the exit the last statement of
    its then branch and the loop's only way out besides its condition (no continue, goto, other
    break or return, no call that stops the program), so that the if is tested once per iteration
    and taken at most once per entry, as the entry's last test.  None for any other loop."""
    exits = list(_early_exits(body, stoppers))
    if len(exits) != 1 or not isinstance(exits[0], (c_ast.Break, c_ast.Return)) or _continues(body):
        return None
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    for item in items:
        if isinstance(item, c_ast.If) and item.iffalse is None:
            then = item.iftrue
            last = (then.block_items or [None])[-1] if isinstance(then, c_ast.Compound) else then
            if last is exits[0]:
                return item, last
    return None


def _calls(node: c_ast.Node | None, name: str) -> bool:
    """Whether the code calls function ``name`` (recursion: the inner run of the loop would count
    its iterations into the same body counter) or anything through a pointer."""
    return any(not isinstance(n.name, c_ast.ID) or n.name.name == name for n in find(node, c_ast.FuncCall))


def _assigns(node: c_ast.Node | None, var: str) -> bool:
    """Whether the code may change ``var``: assigned, incremented, or its address taken."""
    for n in find(node, c_ast.Assignment, c_ast.UnaryOp):
        if isinstance(n, c_ast.Assignment) and is_id(n.lvalue, var):
            return True
        if isinstance(n, c_ast.UnaryOp) and n.op in (*INCREMENTS, "&") and is_id(n.expr, var):
            return True
    return False


def _assigned_names(node: c_ast.Node | None) -> set[str]:
    """Variables the code may change: assigned, declared, incremented, or their address taken."""
    found: set[str] = set()
    for n in find(node, c_ast.Assignment, c_ast.Decl, c_ast.UnaryOp):
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
            found.add(n.lvalue.name)
        elif isinstance(n, c_ast.Decl) and n.name:
            found.add(n.name)
        elif isinstance(n, c_ast.UnaryOp) and n.op in (*INCREMENTS, "&") and isinstance(n.expr, c_ast.ID):
            found.add(n.expr.name)
    return found


def _data_dependent(cond: c_ast.Node | None) -> bool:
    if cond is None:
        return True
    return any(isinstance(n, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef)) or
               (isinstance(n, c_ast.UnaryOp) and n.op == "*") for n in walk(cond))


def _init_expr(node: c_ast.Node, var: str | None) -> c_ast.Node | None:
    """The value a for's initialization gives ``var``."""
    init = getattr(node, "init", None)
    if var is None or init is None:
        return None
    for expr in init.exprs if isinstance(init, c_ast.ExprList) else [init]:
        value = _assigned_value(expr, var)
        if value is not None:
            return value
    if isinstance(init, c_ast.DeclList):
        for decl in init.decls:
            if decl.name == var:
                return decl.init
    return None


def _assigned_value(expr: c_ast.Node, var: str) -> c_ast.Node | None:
    """The value ``var = v`` gives ``var``, also inside a chain ``i2 = i = 1`` (miniAMR's loops over
    a fine and a coarse index): v, the chain's last right-hand side; None if ``expr`` does not."""
    found = False
    while isinstance(expr, c_ast.Assignment) and expr.op == "=":
        found = found or is_id(expr.lvalue, var)
        expr = expr.rvalue
    return expr if found else None


def _paired(node: c_ast.Node) -> tuple[c_ast.Node, int] | None:
    """``for (i = 0, j = n - 1; i < j; i++, j--)``: the bound is a variable the step moves by a
    constant too (and the body leaves alone): its first value and its stride; else None."""
    cond = loop_test(node)
    step = getattr(node, "next", None)
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in _RELATIONS and isinstance(cond.left, c_ast.ID)
            and isinstance(cond.right, c_ast.ID) and cond.right.name != cond.left.name
            and isinstance(step, c_ast.ExprList)):
        return None
    other = cond.right.name
    first = _init_expr(node, other)
    parts = [e for e in step.exprs if other in _assigned_names(e)]
    if first is None or len(parts) != 1 or other in _assigned_names(node.stmt):
        return None
    part = parts[0]
    if isinstance(part, c_ast.UnaryOp) and part.op in INCREMENTS and is_id(part.expr, other):
        return first, 1 if "+" in part.op else -1
    if isinstance(part, c_ast.Assignment) and part.op in ("+=", "-=") and is_id(part.lvalue, other) \
            and isinstance(part.rvalue, c_ast.Constant) and part.rvalue.value.isdigit():
        return first, int(part.rvalue.value) * (1 if part.op == "+=" else -1)
    return None


def _bound_expr(node: c_ast.Node) -> c_ast.Node | None:
    """The bound the loop variable runs to: the other side of its condition, or for a bound the
    step moves too (:func:`_paired`), its first value."""
    paired = _paired(node)
    return paired[0] if paired is not None else _condition_bound(node)


def _condition_bound(node: c_ast.Node) -> c_ast.Node | None:
    """The other side of a condition ``var op bound`` (either way round; ``var * var op bound``)."""
    cond = loop_test(node)
    squared = _squared(cond)
    if squared is not None:
        return squared[2]
    if isinstance(cond, c_ast.BinaryOp) and cond.op in _RELATIONS:
        if isinstance(cond.left, c_ast.ID):
            return cond.right
        if isinstance(cond.right, c_ast.ID):
            return cond.left
    return None


# the runtime's integer square root (perfeq_rt.h), the bound of ``v * v <= b`` as ``v <= ISQRT(b)``
ISQRT = "perfeq_isqrt"


def _squared(cond: c_ast.Node | None) -> tuple[str, str, c_ast.Node] | None:
    """(var, op, bound) of a condition ``var * var < bound`` or ``<=`` (either way round, the
    factors perhaps cast: ``(long)i * i <= (long)n``), else None."""
    if not isinstance(cond, c_ast.BinaryOp) or cond.op not in ("<", "<=", ">", ">="):
        return None
    for square, other, op in ((cond.left, cond.right, cond.op), (cond.right, cond.left, _FLIPPED[cond.op])):
        if op in ("<", "<=") and isinstance(square, c_ast.BinaryOp) and square.op == "*":
            left, right = (direct_value(f) for f in (square.left, square.right))
            if isinstance(left, c_ast.ID) and isinstance(right, c_ast.ID) and left.name == right.name:
                return left.name, op, other
    return None


def _safe_to_evaluate(expr: c_ast.Node, counter: OpCounter) -> bool:
    """An expression without side effects or memory reads, of arithmetic type."""
    for n in walk(expr):
        if isinstance(n, (c_ast.FuncCall, c_ast.Assignment, c_ast.ArrayRef, c_ast.StructRef, c_ast.TernaryOp)):
            return False
        if isinstance(n, c_ast.UnaryOp) and n.op in (*INCREMENTS, "*", "&"):
            return False
    typ = counter.type_of(expr)
    return typ.depth == 0 and typ.struct is None


def _squash(text: str) -> str:
    return re.sub(r"\s+|[()]", "", text)


def _has_macro_free_mismatch(text: str, generated: str) -> bool:
    """True when the texts differ for a reason other than macro expansion (a wrong extent)."""
    return not re.search(r"\b[A-Z_][A-Z0-9_]*\b", text)


def loop_test(node: c_ast.Node) -> c_ast.Node | None:
    """A loop's condition as it tests: without ``!!`` (``likely(j < n)`` is ``__builtin_expect(!!(j <
    n), 1)``, and the analysis reads ``__builtin_expect(x, c)`` as ``(x)``: Benchmarks Game
    spectralnorm's ``for (j = 2 * j; __builtin_expect(j < n, 0); j++)``)."""
    cond = getattr(node, "cond", None)
    while isinstance(cond, c_ast.UnaryOp) and cond.op == "!" and isinstance(cond.expr, c_ast.UnaryOp) \
            and cond.expr.op == "!":
        cond = cond.expr.expr
    return cond
