"""Calls, MPI sites, allocations, array shapes and parameters in a function (stage 1, instrument/collect).

A mixin of :class:`~perfeq.instrument.collect.function.FunctionCollector`: announces calls, MPI
sites and allocation sizes; records array shapes and the problem-size parameters (argv, MPI, OpenMP).
"""

from __future__ import annotations

import re

from pycparser import c_ast

from perfeq.arguments import lvalue_symbol, path_root
from perfeq.instrument import descriptors as d
from perfeq.instrument import hooks
from perfeq.instrument.collect.loopplan import poll_flag
from perfeq.instrument.collect.walk import (
    COMMAND_LINE,
    INCREMENTS,
    array_dims,
    callee,
    calls,
    direct_value,
    element_path,
    element_text,
    find,
    formal_parameters,
    generate,
    lvalue_path,
    mentions_argv,
    names,
    return_type_names,
    ternaries,
    walk,
    writable_arguments,
)
from perfeq.instrument.opcount import ZERO, OpCount
from perfeq.instrument.source import SourceError

# MPI calls that send no message of the program's (set-up, queries, completion, datatypes, ...)
_QUIET_MPI = re.compile(r"MPI_(Comm_|Type_|Group_|Cart_|Dims_|Graph|Op_|Info_|Errhandler_|Error_|Keyval|Attr_|"
                        r"Win_free|File_|Wtime|Wtick|Abort|Get_|Test|Wait|Probe|Iprobe|Initialized|Finalized|"
                        r"Query_thread|Is_thread_main|Status_|Request_|Buffer_|Address|Alloc_mem|Free_mem|Pack|"
                        r"Unpack|Cancel|Start|Pcontrol|Topo_test|Add_error|Free_)")
# readers of input files: the index of their first output argument
SCANNERS = {"scanf": 1, "fscanf": 2, "sscanf": 2, "fread": 0}  # the first destination argument
# derived datatypes whose size the symbolic stage derives from their construction
DATATYPE_CONSTRUCTORS = ("MPI_Type_contiguous", "MPI_Type_vector", "MPI_Type_hvector", "MPI_Type_create_hvector",
                         "MPI_Type_create_subarray", "MPI_Type_create_indexed_block",
                         "MPI_Type_create_hindexed_block", "MPI_Type_create_resized", "MPI_Type_dup")
# communicators and groups whose size the symbolic stage derives from their construction (the new
# handle is the last argument)
COMMUNICATOR_CONSTRUCTORS = ("MPI_Comm_split", "MPI_Comm_create", "MPI_Comm_dup", "MPI_Group_incl",
                             "MPI_Group_excl", "MPI_Comm_group", "MPI_Cart_create", "MPI_Cart_sub")
# the record and the unit's list each constructor's new handle goes into
_HANDLES = {**dict.fromkeys(DATATYPE_CONSTRUCTORS, (d.DatatypeDescriptor, "datatypes")),
            **dict.fromkeys(COMMUNICATOR_CONSTRUCTORS, (d.CommunicatorDescriptor, "communicators"))}
ALLOCATORS = ("malloc", "calloc", "realloc", "aligned_alloc")
# what turns a command-line argument into a number (strlen: a string's length is the size,
# parallel-etudes' omp-levenshtein)
ARGV_CONVERTERS = ("atoi", "atol", "atoll", "atof", "strtol", "strtoul", "strtoll", "strtoull", "strtod", "strlen")
# calls whose writes through their arguments the symbolic stage knows (perfeq.symbolic.communicators)
_KNOWN_WRITERS = ("MPI_Comm_size", "MPI_Comm_rank", "MPI_Cart_shift", "MPI_Cart_coords", "MPI_Cart_rank")
_SIZE_ARGUMENT = {"malloc": 0, "calloc": 0, "realloc": 1, "aligned_alloc": 1}


class CallSites:
    """Calls and what they tell: uses the core's blocks, slots and statement-level insertions."""

    def expressions(self, node: c_ast.Node, target: str | None = None, member: tuple[str, str] | None = None) -> None:
        """Calls, communication, allocations and parameters inside one statement's expressions
        (``target``: the variable a declaration initialises; ``member``: the element or field a
        brace initialiser's value sets, (path, C text))."""
        lvalue = member or ((target, target) if target else None)  # what the statement sets: (path, C text)
        if isinstance(node, c_ast.Assignment):
            if isinstance(node.lvalue, c_ast.ID):
                target = node.lvalue.name
            path = lvalue_path(node.lvalue) if node.op == "=" else None
            lvalue = (path, generate(node.lvalue)) if path else None
        for call in calls(node):
            name = callee(call)
            if name is None or self._pointer_variable(name):
                self.pointer_call(call)
                continue
            self.argv_by_reference(node, call)
            if name in self.u.user_functions:
                self.user_call(call, name)
                if name in self.u.readers:
                    self.read_by_call(node, call, self.u.readers[name])
                if name in self.u.getters:
                    assigned = lvalue if direct_value(node) is call else _assigned(node, call, None)
                    if assigned:
                        self.getter_param(node, call, *assigned)
                if name in self.u.inlined:
                    self.inlined_setter(node, call, name)
                if target and member is None and direct_value(node) is call:
                    self.returned_allocation(call, name, target)
                if lvalue and direct_value(node) is call:
                    self.argv_struct(node, call, *lvalue)
            elif name.startswith("MPI_"):
                self.mpi_call(call, name)
                if name == "MPI_Dims_create":
                    self.dims_params(node, call)
                elif name == "MPI_Cart_shift":
                    self.cart_shift(call)
                elif name == "MPI_Cart_coords":
                    self.cart_coords(call)
                elif name == "MPI_Cart_rank":
                    self.cart_rank(call)
            elif name in ALLOCATORS:
                self.allocation(call, name, target)
            elif name in ARGV_CONVERTERS or name == "sscanf":
                self.argv_param(node, call, name, lvalue if direct_value(node) is call else _assigned(node, call, lvalue))
            elif name in ("omp_get_num_threads", "omp_get_max_threads") and target:
                self.param(node, member[0] if member else target, "T", "omp_threads", call)
            if name in SCANNERS and (self.loop is None or self.validation_loop(call, name)):
                self.input_params(node, call, name)
            elif not name.startswith("MPI_"):
                self.grid_params(node, call)
            if name not in self.u.user_functions:
                self.set_by_call(call, name)
        for ternary in ternaries(node):
            self.ternary(ternary)

    def call_extent(self, call: c_ast.FuncCall, name: str, macros: bool = False) -> tuple[int, int, list[str]] | None:
        """The call's first and last tokens and its arguments' original text; None if not found.
        ``macros``: a call a macro invocation writes (``CHECK(MPI_Send(...))``, ``SEND(buf, n)``) is
        found in the invocation, once (see :meth:`macro_call_extent`), for a hook around the call."""
        start = self.u.tok(call, name)
        if start is None:
            extent = self.macro_call_extent(call, name) if macros else None
            if extent is None or extent[0] in self.u.macro_hooked:
                return None
            self.u.macro_hooked.add(extent[0])
            return extent
        try:
            return self._arguments(start, self.src.expect(start + 1, "("))
        except SourceError:
            return None

    def macro_call_extent(self, call: c_ast.FuncCall, name: str) -> tuple[int, int, list[str]] | None:
        """A call inside a macro's expansion: the whole invocation when it expands to exactly the
        call (``SEND(buf, n)`` of ``#define SEND(b, n) MPI_Send(b, n, ...)``), with the call's
        arguments as expanded; else the call written in the invocation's arguments
        (``CHECK(MPI_Allreduce(...))``), when it is there once and the macro substitutes its
        arguments as text (no ``#``/``##``: the hook is expanded with the argument, never made a
        string).  None otherwise."""
        if not self.u.in_main(call):
            return None
        found = self.src.expansion_extent(call.coord.line, call.coord.column)
        if found is None:
            return None
        first, last = found
        tokens = self.src.tokens
        if self.u.is_call_macro(tokens[first].text, name, first == last):
            return first, last, _generated_args(call)
        if not self.u.substituting(tokens[first].text):
            return None
        starts = [k for k in range(first + 1, last) if tokens[k].text == name and tokens[k + 1].text == "("]
        if len(starts) != 1:
            return None
        try:
            return self._arguments(starts[0], starts[0] + 1)
        except SourceError:
            return None

    def _arguments(self, start: int, open_: int) -> tuple[int, int, list[str]]:
        """A call from token ``start`` whose arguments open at ``open_``: its first and last tokens
        and its arguments' original text."""
        close = self.src.match_bracket(open_)
        args = [] if close == open_ + 1 else [self.src.text_of(a, b) for a, b in self.src.split_top(open_ + 1, close - 1, ",")]
        return start, close, args

    def header_calls(self, expr: c_ast.Node, loop_id: int, part: str) -> OpCount:
        """Calls of this file's functions in a loop's initialization, condition or step: announced
        like a statement's, with where in the header they run (docs/descriptors.md ``header``).
        Returns the operations of the straight-line (inlined) ones, which that part runs."""
        inlined = ZERO
        for call in calls(expr):
            name = callee(call)
            if name in self.u.user_functions:
                self.user_call(call, name, {"loop": loop_id, "part": part})
                if name in self.u.inlined:
                    inlined = inlined + self.u.inlined[name]
        return inlined

    def user_call(self, call: c_ast.FuncCall, name: str, header: dict | None = None) -> None:
        self.u._callgraph.setdefault(self.name, set()).add(name)
        extent = self.call_extent(call, name, macros=name not in self.u.inlined)
        site = len(self.u.unit.calls)
        args = extent[2] if extent is not None else _generated_args(call)
        if name in self.u.inlined:  # a straight-line function: its operations count in this block
            if header is None:  # (in a loop header: in that part's operations, header_calls)
                self.add_ops(self.u.inlined[name])
            extent = None
        elif extent is not None:
            start, close, args = extent
            twin = self.twin_callable(start, name)
            if self.leaf_call(call, name) and (twin or not self.parallel):
                k = len(self.u.leaf_calls)
                self.u.leaf_calls.append((self.index, site, name))
                if twin:
                    self.twin_call(start, close, name, k)
                else:
                    self.u.wrap(self.src.tokens[start].start, self.src.tokens[close].end, *hooks.leaf_called(k))
            else:
                self.u.wrap(self.src.tokens[start].start, self.src.tokens[close].end, *hooks.called(site, name))
        self.u.unit.calls.append(d.CallDescriptor(
            id=site, function=self.index, callee=name, line=call.coord.line, col=call.coord.column, args=args,
            block=self.block_id, loop=self.loop, instrumented=extent is not None, header=header,
        ))

    def twin_callable(self, start: int, name: str) -> bool:
        """Whether the call of ``name`` written from token ``start`` can call its twin (twin_call):
        a leaf with a twin, called by its name in the file's own text; in a parallel construct only
        the twin of a leaf that records no values, with the calling thread's slab of this context
        (PERFEQ_LEAF_ARGS_L / _MT); before the leaf's definition only where a prototype declares it (a
        call without one passes its arguments as they are, which the twin's prototype would convert or
        refuse).  Otherwise PERFEQ_LEAF_CALLED, in serial code."""
        twin = self.u.twins.get(name)
        tokens = self.src.tokens
        return (twin is not None and self.u.included_file is None and tokens[start].text == name
                and tokens[start + 1].text == "(" and self.definition_start is not None
                and (twin.declared or twin.defined_at < self.definition_start)
                and (twin.valueless or not self.parallel))

    def twin_call(self, start: int, close: int, name: str, k: int) -> None:
        """Leaf call site ``k`` written ``name(args)``, whose twin it can call (twin_callable): the
        call made a call of the twin with this context's slots (in a parallel construct, the
        thread's)."""
        twin, tokens, here = self.u.twins[name], self.src.tokens, self.definition_start
        self.u.wrap(tokens[start].start, tokens[start].end, *hooks.leaf_twin(k))
        self.u.insert(tokens[start + 1].end, hooks.leaf_arguments(k, empty=close == start + 2, where=self.where))
        twin.used = True
        if twin.defined_at > here:
            twin.callers.add(here)  # defined after this caller: its prototype goes before it

    def leaf_call(self, call: c_ast.FuncCall, name: str) -> bool:
        """A call of one of this unit's leaf functions that can count into this context (in a
        parallel construct only through its twin, twin_callable: the threads would share the slots
        of an announced call), its arguments calling no function of the program (that call would
        take the leaf's announcement)."""
        if name not in self.u.leaves:
            return False
        return not any(c is None or self._pointer_variable(c) or (c in self.u.user_functions and c not in self.u.inlined)
                       for c in map(callee, calls(call.args) if call.args is not None else ()))

    def _pointer_variable(self, name: str) -> bool:
        """``name`` is a variable (a function pointer: a parameter, a local, a global), not a function
        (a prototype in a block, ``long random(void);``, declares a function)."""
        owner = self.scope.owner(name)
        if owner is not None and owner is not self.u.globals and name in self.block_prototypes:
            return False
        return owner is not None and (owner is not self.u.globals or name not in self.u.functions)

    def pointer_call(self, call: c_ast.FuncCall) -> None:
        """A call through a function pointer: in a struct (``sim->pot->force(sim)``), a table
        (``handlers[type](...)``) or a variable (``compare(a, b)``), announced without a name (the
        runtime gives it to the next instrumented function entered from this frame), so that the
        callee's context has its call site, its calls the count of the caller's block, and its counts
        their arguments.  ``(*f)(x)`` is left alone."""
        if not isinstance(call.name, (c_ast.StructRef, c_ast.ArrayRef, c_ast.ID)):
            return
        start = self.u.tok(call.name)
        if start is None:
            return
        try:
            open_ = self.src.scan_to(start, ("(", ";", "{", "}"))
            if self.src.tokens[open_].text != "(" or \
                    self.src.text_of(start, open_ - 1).replace(" ", "") != generate(call.name).replace(" ", ""):
                return
            _, close, args = self._arguments(start, open_)
        except SourceError:
            return
        site = len(self.u.unit.calls)
        self.u.wrap(self.src.tokens[start].start, self.src.tokens[close].end, *hooks.called(site, None))
        self.u.unit.calls.append(d.CallDescriptor(
            id=site, function=self.index, callee=generate(call.name), line=call.coord.line, col=call.coord.column,
            args=args, block=self.block_id, loop=self.loop, instrumented=True, header=None))

    def mpi_call(self, call: c_ast.FuncCall, name: str) -> None:
        spec = self.u._mpi_calls.get(name)
        extent = self.call_extent(call, name, macros=spec is not None)
        args = extent[2] if extent else _generated_args(call)
        if name in ("MPI_Comm_size", "MPI_Comm_rank") and len(args) == 2 and args[1].strip().startswith("&"):
            # (of ``&n`` only: given a pointer, MPI_Comm_rank(comm, rank) sets the caller's variable,
            # and a hook reading ``rank`` here would read the pointer: HPCC's cblacslt.c did not build)
            variable = args[1].strip()[1:].strip()
            if re.fullmatch(r"[A-Za-z_]\w*", variable):
                kind = "mpi_size" if name == "MPI_Comm_size" else "mpi_rank"
                symbol = "P" if kind == "mpi_size" else "rank"
                if args[0].strip() == "MPI_COMM_WORLD" or _world_alias(self.u, args[0].strip()):
                    self.param(call, variable, symbol, kind, call)
        flag = poll_flag(name, args)
        if flag is not None:
            self.poll_flags.add(self.declared_as(flag))
        if name in _HANDLES and args and call.args:
            new_handle = lvalue_path(call.args.exprs[-1])
            if new_handle:
                record, into = _HANDLES[name]
                getattr(self.u.unit, into).append(record(name=new_handle, function=self.index, line=call.coord.line,
                                                         constructor=name, args=args, loop=self.loop))
        if spec is None:
            if not _QUIET_MPI.match(name):
                self.u.warn(call.coord.line, call.coord.column, f"{name} is not counted: the messages it sends are "
                            "missing from the model (perfeq counts the calls of runtime/mpi/calls.py)")
            return
        comm_id = len(self.u.unit.comms)
        if extent is not None:
            start, close, _ = extent
            self.u.wrap(self.src.tokens[start].start, self.src.tokens[close].end, *hooks.mpi(comm_id))

        def arg(key: str) -> str | None:
            index = spec.get(key)
            return args[index] if index is not None and index < len(args) else None

        self.u.unit.comms.append(d.CommDescriptor(
            id=comm_id, function=self.index, call=name, line=call.coord.line, col=call.coord.column, args=args,
            count=arg("count"), datatype=arg("datatype"), peer=arg("peer"), root=arg("root"), comm=arg("comm"),
            block=self.block_id, loop=self.loop, instrumented=extent is not None,
        ))

    # ---- shapes ---------------------------------------------------------------------------
    def allocation(self, call: c_ast.FuncCall, name: str, target: str | None) -> None:
        extent = self.call_extent(call, name)
        if extent is None:
            return
        start, close, args = extent
        size_index = _SIZE_ARGUMENT[name]
        if size_index >= len(args):
            return
        slot = None
        if not self.parallel:
            slot = self.value_slot()
            open_ = start + 1
            a, b = self.src.split_top(open_ + 1, close - 1, ",")[size_index]
            self.u.wrap(self.src.tokens[a].start, self.src.tokens[b].end, *hooks.size(slot))
        extents = [args[size_index]] + ([args[1]] if name == "calloc" and len(args) > 1 else [])
        self.u.unit.shapes.append(d.ArrayShape(
            id=len(self.u.unit.shapes), function=self.index, name=target, line=call.coord.line, kind=name,
            ndims=1, extents=extents, element=None, value_slot=slot, loop=self.loop,
        ))

    def returned_allocation(self, call: c_ast.FuncCall, name: str, target: str) -> None:
        """``psi = new_grid(local_nx + 2, n + 2)``: ``psi`` may be what the callee allocates (its size
        is resolved in the symbolic stage, from the callee's allocation and these arguments)."""
        args = self.u.unit.calls[-1].args
        self.u.unit.shapes.append(d.ArrayShape(
            id=len(self.u.unit.shapes), function=self.index, name=target, line=call.coord.line, kind="call",
            ndims=1, extents=[name, *args], element=None, value_slot=None, loop=self.loop,
        ))

    def parameter_shapes(self, funcdef: c_ast.FuncDef) -> None:
        """The extents of the function's array parameters (``double a[N][M]``, ``double a[n][m]``,
        PolyBench's ``POLYBENCH_2D(A, N, N, n, n)``): the rows of the caller's array the body walks
        (kind ``param``; the first extent may be empty)."""
        decl_type = funcdef.decl.type
        if not isinstance(decl_type, c_ast.FuncDecl) or not decl_type.args:
            return
        for param in decl_type.args.params:
            if not (isinstance(param, c_ast.Decl) and param.name and isinstance(param.type, c_ast.ArrayDecl)):
                continue
            extents = self.u.array_extents(param)
            if len(extents) < 2:
                continue
            self.u.unit.shapes.append(d.ArrayShape(
                id=len(self.u.unit.shapes), function=self.index, name=param.name, line=param.coord.line,
                kind="param", ndims=len(extents), extents=extents, element=element_text(param.type),
                value_slot=None, loop=None,
            ))

    def array_declaration(self, node: c_ast.Decl) -> None:
        """An array declared in the function: fixed, or variable-length (its size recorded after it)."""
        extents = self.u.array_extents(node)
        # after preprocessing, a fixed extent is a constant expression (macros expanded)
        vla = any(names(dim) - self.u.enumerators() for dim in array_dims(node.type))
        slot = None
        if vla and self.parallel == 0:
            slot = self.value_slot()
            self.after_statement(node, hooks.extent_value(slot, extents, self.leaf))
        self.u.unit.shapes.append(d.ArrayShape(
            id=len(self.u.unit.shapes), function=self.index, name=node.name, line=node.coord.line,
            kind="vla" if vla else "fixed", ndims=len(extents), extents=extents, element=element_text(node.type),
            value_slot=slot, loop=None,
        ))

    # ---- parameters -----------------------------------------------------------------------
    def argv_by_reference(self, stmt: c_ast.Node, call: c_ast.FuncCall) -> None:
        """``parse_int(argv[1], &n)``, ``parse(argc, argv, &cmd)``: a call given the command line
        and the address of a variable: the variable, or each arithmetic field of a struct."""
        args = call.args.exprs if call.args else []
        if isinstance(call.name, c_ast.ID) and call.name.name.startswith("MPI_"):
            return
        if not any(mentions_argv(a, self.u.command_line) and not isinstance(a, c_ast.UnaryOp) for a in args):
            return
        for arg in args:
            if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ID):
                name = arg.expr.name
                typ = self.scope.lookup(name)
                if name == "argc" or name in self.u.command_line or typ is None or typ.depth != 0:
                    continue
                if typ.struct is None:
                    self.param(stmt, name, lvalue_symbol(name), "argv", call)
                else:
                    self.struct_params(stmt, call, typ.struct, name, name)

    def argv_struct(self, stmt: c_ast.Node, call: c_ast.FuncCall, path: str, text: str) -> None:
        """``Command cmd = parse(argc, argv)``: a struct returned by a function given the command
        line; each of its arithmetic fields is a parameter candidate."""
        args = call.args.exprs if call.args else []
        typ = self.scope.lookup(path) if path.isidentifier() else None
        if typ is not None and typ.depth == 0 and typ.struct and any(mentions_argv(a, self.u.command_line) for a in args):
            self.struct_params(stmt, call, typ.struct, path, text)

    def struct_params(self, stmt: c_ast.Node, call: c_ast.FuncCall, struct: str, path: str, text: str) -> None:
        for field_path, field_text in self.u.scalar_fields(struct, path, text):
            self.param(stmt, field_path, lvalue_symbol(field_path), "argv", call, field_text)

    def argv_param(self, stmt: c_ast.Node, call: c_ast.FuncCall, name: str,
                   lvalue: tuple[str, str] | None) -> None:
        """``n = atoi(argv[1])``, ``cmd.nx = strtol(optarg, NULL, 10)``, ``sscanf(argv[2], "%d", &in.n)``;
        outside loops, a number converted from a line of input too (ljmd's ``fgets(line, ...)`` then
        ``sys->natoms = atoi(line)``: source ``input``, promoted only if a count depends on it)."""
        args = call.args.exprs if call.args else []
        if not args:
            return
        if not mentions_argv(args[0], self.u.command_line):
            if name not in ("sscanf", "strlen") and lvalue and self.loop is None:
                path, text = lvalue
                self.param(stmt, path, lvalue_symbol(path), "input", call, text)
            return
        if name == "sscanf":
            elements = self._size_elements(args[2:]) if self.loop is None else []  # not a[i] of a read loop
            for path, text in _addressed(args[2:]) + elements:
                self.param(stmt, path, lvalue_symbol(path), "argv", call, text)
            return
        if lvalue:
            path, text = lvalue
            self.param(stmt, path, lvalue_symbol(path), "argv", call, text)

    def validation_loop(self, call: c_ast.FuncCall, name: str) -> bool:
        """Whether the scanner ``call`` is in a loop that reads a size until it is valid, the only
        loop around it: a while or do-while whose condition tests what it reads (LLNL mpi_wave's
        ``while ((nsteps < 1) || (nsteps > MAXSTEPS)) { ... scanf("%d", &nsteps); }``).  The value
        after the loop is the size (recorded after the function's top statement); a loop reading
        data (``for (i = 0; i < n; i++) fscanf(f, "%d", &a[i])``) is not such a loop."""
        if len(self.loops) != 1 or not self.loop_frames:
            return False
        loop = self.loop_frames[-1][0]
        if not isinstance(loop, (c_ast.While, c_ast.DoWhile)) or loop.cond is None:
            return False
        args = call.args.exprs if call.args else []
        read = {path for path, _ in _addressed(args[SCANNERS[name]:])}
        return bool(read) and read <= names(loop.cond)

    def input_params(self, stmt: c_ast.Node, call: c_ast.FuncCall, name: str) -> None:
        """``fscanf(in, "%d %d", &nx, &cfg.steps)`` or ``fread(&w, sizeof w, 1, f)`` outside loops:
        sizes read from an input file (or a line of one) are candidates too; those no count depends
        on are not promoted."""
        args = call.args.exprs if call.args else []
        first = SCANNERS[name]
        if name == "sscanf" and args and mentions_argv(args[0], self.u.command_line):
            return  # argv_param's
        destinations = args[first:]
        if name == "fread":  # fread(&w, sizeof w, 1, f): one item of a binary header (Parboil histo)
            if len(args) != 4 or not (isinstance(args[2], c_ast.Constant) and args[2].value == "1"):
                return
            destinations = args[:1]
        for path, text in _addressed(destinations):
            typ = self.scope.lookup(path) if path.isidentifier() else None
            if typ is None or (typ.depth == 0 and not typ.struct):
                self.param(stmt, path, lvalue_symbol(path), "input", call, text)
        for path, text in self._size_elements(destinations):
            self.param(stmt, path, lvalue_symbol(path), "input", call, text)

    def read_by_call(self, stmt: c_ast.Node, call: c_ast.FuncCall, positions: set[int]) -> None:
        """``get_input(&n)``, ``get_input`` reading input through that parameter
        (:func:`input_readers`): the variable, or a field (``&settings->x_cells``), is a candidate
        (source ``input``) recorded after the call, on every rank (after the helper's broadcast,
        when it has one).  Outside loops, or in loops that read the input (UoB-HPC TeaLeaf's
        ``while (getline(&line, &len, f) != EOF) if (starts_get_int("x_cells", line, word,
        &settings->grid_x_cells)) continue;``: the value after the loop is the size)."""
        args = call.args.exprs if call.args else []
        if self.loop is not None and not all(_reads_input(frame[0], self.u.command_line) for frame in self.loop_frames):
            return
        for path, text in _addressed([a for p, a in enumerate(args) if p in positions]):
            typ = self.scope.lookup(path) if path.isidentifier() else None
            if typ is not None and (typ.depth != 0 or typ.struct or typ.is_array):
                continue
            self.param(stmt, path, lvalue_symbol(path), "input", call, text)

    def getter_param(self, stmt: c_ast.Node, call: c_ast.FuncCall, path: str, text: str) -> None:
        """``mesh.global_nx = get_int_parameter("nx", file);`` outside loops, the callee returning
        a number it read (:func:`input_getters`, in this unit or another of the compile line): what
        it sets is a candidate (source ``input``) recorded after the statement, each call its own,
        as ``scanf("%d", &mesh.global_nx)`` would be; in a loop only when the call is given the
        command line (miniBUDE's ``if (++i >= argc || (nposes = parseInt(argv[i])) < 0)`` in its loop
        over the arguments), as ``atoi(argv[i])`` is."""
        args = call.args.exprs if call.args else []
        if self.loop is not None and not any(mentions_argv(a, self.u.command_line) for a in args):
            return
        typ = self.scope.lookup(path) if path.isidentifier() else None
        if typ is not None and (typ.depth != 0 or typ.struct or typ.is_array):
            return
        self.param(stmt, path, lvalue_symbol(path), "input", call, text)

    def _size_elements(self, args: list[c_ast.Node]) -> list[tuple[str, str]]:
        """The elements at a variable index of integer arrays whose addresses are passed
        (``&nx[lt]``, NPB MG's size of its finest level; FunctionCollector._size_element):
        (element path, C text)."""
        found = []
        for arg in args:
            path = self._size_element(arg.expr) if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" else None
            if path:
                found.append((path, generate(arg.expr)))
        return found

    def grid_params(self, stmt: c_ast.Node, call: c_ast.FuncCall) -> None:
        """``factor(nprocs, &px, &py)`` outside loops: a function given the process count and the
        addresses of plain variables may set the sides of a process grid (a header's static inline,
        a library's, the program's own).  Recorded as candidates (source ``procgrid``); the model
        takes each as grid_lo(P) or grid_hi(P) where the runs show it is one, and forgets the others."""
        args = call.args.exprs if call.args else []
        sizes = {p.variable for p in self.u.unit.params if p.source == "mpi_size" and p.function == self.index}
        if self.loop is not None or not sizes or not any(
                isinstance(a, c_ast.ID) and a.name in sizes for a in args):
            return
        for path, text in _addressed(args):
            typ = self.scope.lookup(path) if path.isidentifier() else None
            if typ is not None and typ.depth == 0 and not typ.struct:
                self.param(stmt, path, lvalue_symbol(path), "procgrid", call, text)

    def factor_loop_params(self, loop: c_ast.Node, end: int) -> None:
        """A loop outside loops that tests the process count modulo a variable it sets, the sides
        of a process grid written out (``for (px = sqrt(P + 1); px > 0; px--) if (P % px == 0)
        { py = P / px; break; }``, ``while (P % px) px--;``): the plain integers it assigns are
        candidates like ``factor(P, &px, &py)``'s, recorded after the loop (source ``procgrid``; the
        model takes each as grid_lo(P) or grid_hi(P) where the runs show it is one, and forgets the
        others: the loop's counter of an upward search, a flag)."""
        if self.loop is not None or self.parallel:
            return
        sizes = {p.variable for p in self.u.unit.params if p.source == "mpi_size" and p.function == self.index}
        if not sizes:
            return
        assigned = _assigned_plain(loop)
        tested = {n.right.name for n in find(loop, c_ast.BinaryOp)
                  if n.op == "%" and isinstance(n.left, c_ast.ID) and n.left.name in sizes
                  and isinstance(n.right, c_ast.ID)}
        if not tested & assigned:
            return
        header = generate(loop).split("\n", 1)[0].strip().rstrip("{").strip()
        self._stmt_end, self._after_condition = end, True
        for name in sorted(assigned - sizes):
            typ = self.scope.lookup(name)
            if typ is not None and typ.depth == 0 and not typ.struct and not typ.floating and not typ.is_array:
                self.param(loop, name, lvalue_symbol(name), "procgrid", None, text=header)

    def dims_params(self, stmt: c_ast.Node, call: c_ast.FuncCall) -> None:
        """``MPI_Dims_create(size, 2, dims)`` outside loops, ``dims`` a local array: its elements are
        the sides of a process grid, candidates like ``factor(P, &px, &py)``'s (source ``procgrid``;
        the model takes each as grid_lo(P) or grid_hi(P) where the runs show it is one)."""
        args = call.args.exprs if call.args else []
        if self.loop is not None or len(args) != 3 or not isinstance(args[1], c_ast.Constant) \
                or not isinstance(args[2], c_ast.ID):
            return
        typ = self.scope.lookup(args[2].name)
        if typ is None or typ.depth != 1 or not typ.is_array or typ.floating or typ.struct:
            return
        for index in range(min(int(args[1].value.rstrip("uUlL"), 0), 3)):
            path = f"{args[2].name}[{index}]"
            self.param(stmt, path, lvalue_symbol(path), "procgrid", call, path)

    def cart_shift(self, call: c_ast.FuncCall) -> None:
        """``MPI_Cart_shift(cart, dir, disp, &src, &dst)``: the neighbours it sets, recorded as
        assignments of ``perfeq_cart_neighbour(cart, dir, -disp)`` and ``(cart, dir, disp)``, which
        the symbolic stage reads as a rank or MPI_PROC_NULL from the grid ``cart`` was built with
        (perfeq.symbolic.communicators.cart_neighbour): where a send has a partner."""
        args = call.args.exprs if call.args else []
        if len(args) != 5:
            return
        cart, direction, disp = (generate(a) for a in args[:3])
        for arg, sign in ((args[3], "-"), (args[4], "")):
            if not (isinstance(arg, c_ast.UnaryOp) and arg.op == "&"):
                continue
            path = lvalue_path(arg.expr) or element_path(arg.expr)
            if path is not None:
                self.assignments.append(d.Assignment(
                    variable=path, op="=", text=f"perfeq_cart_neighbour({cart}, {direction}, {sign}({disp}))",
                    line=call.coord.line, block=self.block_id, loop=self.loop, is_global=self._is_global(path)))

    def cart_coords(self, call: c_ast.FuncCall) -> None:
        """``MPI_Cart_coords(cart, r, n, coords)`` with ``n`` a constant and ``coords`` an array: its
        elements recorded as assignments of ``perfeq_cart_coord(cart, r, k)``, the coordinate k of
        rank ``r`` on the grid ``cart`` was built with (perfeq.symbolic.communicators)."""
        args = call.args.exprs if call.args else []
        if len(args) != 4 or not isinstance(args[2], c_ast.Constant) or not args[2].value.isdigit():
            return
        target = args[3].expr if isinstance(args[3], c_ast.UnaryOp) and args[3].op == "&" else args[3]
        if isinstance(target, c_ast.ArrayRef):
            return  # &coords[1]: elements from an offset
        path = lvalue_path(target)
        if path is None:
            return
        cart, rank = generate(args[0]), generate(args[1])
        for k in range(min(int(args[2].value), 8)):
            self.assignments.append(d.Assignment(
                variable=f"{path}[{k}]", op="=", text=f"perfeq_cart_coord({cart}, {rank}, {k})",
                line=call.coord.line, block=self.block_id, loop=self.loop, is_global=self._is_global(path)))

    def cart_rank(self, call: c_ast.FuncCall) -> None:
        """``MPI_Cart_rank(cart, coords, &r)`` with ``coords`` an array: ``r`` recorded as an
        assignment of ``perfeq_cart_rank(cart, coords)``, the rank at those coordinates on the grid
        ``cart`` was built with (Jacobi3D's scatter root: the rank at {0, 0, 0})."""
        args = call.args.exprs if call.args else []
        if len(args) != 3 or not isinstance(args[1], c_ast.ID):
            return
        if not (isinstance(args[2], c_ast.UnaryOp) and args[2].op == "&"):
            return
        path = lvalue_path(args[2].expr) or element_path(args[2].expr)
        if path is not None:
            self.assignments.append(d.Assignment(
                variable=path, op="=", text=f"perfeq_cart_rank({generate(args[0])}, {args[1].name})",
                line=call.coord.line, block=self.block_id, loop=self.loop, is_global=self._is_global(path)))

    def set_by_call(self, call: c_ast.FuncCall, name: str) -> None:
        """Variables this function assigned before (``int pdims[2] = {0, 0};``) that a call to a
        function the program does not define may write (``MPI_Dims_create(size, 2, pdims)``,
        ``MPI_Allreduce(&local, &total, ...)``: an address or an array given to a parameter that is
        no pointer to const): recorded as set by the call (op ``call``), so that the symbolic stage
        does not take the value from before the call (text: the callee's name).  Not for the calls whose writes it knows
        (``MPI_Comm_size``, ``MPI_Comm_rank``) or that make parameters of them (scanners, getters)."""
        if name in _KNOWN_WRITERS or name in SCANNERS or not call.args:
            return
        args = call.args.exprs
        for position in sorted(writable_arguments(self.u.prototypes.get(name), len(args))):
            arg = args[position]
            if isinstance(arg, c_ast.UnaryOp) and arg.op == "&":
                path = lvalue_path(arg.expr) or element_path(arg.expr)
            elif isinstance(arg, c_ast.ID) and (typ := self.scope.lookup(arg.name)) is not None and typ.is_array:
                path = arg.name
            else:
                continue
            if path is None or any(p.variable == path and p.function == self.index for p in self.u.unit.params):
                continue
            written = dict.fromkeys(a.variable for a in self.assignments
                                    if a.variable == path or a.variable.startswith((f"{path}[", f"{path}.")))
            for variable in written:
                self.assignments.append(d.Assignment(variable=variable, op="call", text=name,
                                                     line=call.coord.line, block=self.block_id, loop=self.loop,
                                                     is_global=self._is_global(variable)))

    def inlined_setter(self, stmt: c_ast.Node, call: c_ast.FuncCall, name: str) -> None:
        """``set_warmup(atoi(optarg))`` of a straight-line setter (``options.skip = value;``), which
        has no hooks of its own: the globals it sets from that argument, recorded after the call."""
        args = call.args.exprs if call.args else []
        positions = {p for p in self.u.setters.get(name, set()) if p < len(args) and _argv_number(args[p], self.u.command_line)}
        fd = next((f for f in self.u.defined if f.decl.name == name), None)
        if fd is None or not positions:  # (this call gives the setter no number from the command line)
            return
        formals = [formal for formal, _ in formal_parameters(fd)]
        for item in fd.body.block_items or []:
            path = _global_set_from(item, formals, positions, self.u.globals)
            if path is not None and self.scope.owner(path_root(path)) is self.u.globals:
                self.param(stmt, path, lvalue_symbol(path), "argv", call, generate(item.lvalue))

    def setter_param(self, stmt: c_ast.Node) -> None:
        """``options.loop = value;`` in a function some call gives a number from the command line
        in ``value`` (``set_num_iterations(atoi(optarg))``): the global it sets is a candidate."""
        positions = self.u.setters.get(self.name)
        if not positions:
            return
        formals = [name for name, _ in formal_parameters(self.funcdef)]
        path = _global_set_from(stmt, formals, positions, self.u.globals)
        if path is not None and self.scope.owner(path_root(path)) is self.u.globals:  # (no local hides it)
            self.param(stmt, path, lvalue_symbol(path), "argv", None, generate(stmt.lvalue))

    def param(self, stmt: c_ast.Node, variable: str, symbol: str, source: str, call: c_ast.FuncCall | None,
              access: str | None = None, text: str | None = None) -> None:
        """A parameter candidate ``variable`` (a canonical lvalue, read by the C text ``access``),
        recorded after the statement ``stmt`` that sets it (by ``call``; None: an assignment, shown
        as ``text`` or the statement)."""
        if any(p.variable == variable and p.function == self.index for p in self.u.unit.params):
            return
        if call is None:
            text, line = text or generate(stmt), stmt.coord.line
        else:
            extent = self.call_extent(call, call.name.name) if isinstance(call.name, c_ast.ID) else None
            text = self.src.text_of(extent[0], extent[1]) if extent else generate(call)  # as written
            line = call.coord.line
        self.u.unit.params.append(d.ParamDescriptor(variable=variable, symbol=symbol, source=source,
                                                    function=self.index, line=line, text=text))
        if not self.parallel and source not in d.MPI_SOURCES:
            self.after_statement(stmt, hooks.param(variable, access or variable))
            if not self._written_again(stmt, variable):
                self.after_top_statement(variable, hooks.param(variable, access or variable))

    def _written_again(self, stmt: c_ast.Node, variable: str) -> bool:
        """Whether a loop after ``stmt``, in a block that holds both, writes ``variable`` again
        (``fscanf(f, "%d", &input)`` for every key after the size was read into it: recorded after
        the function's top statement, it held the last key read, Rodinia b+tree).  A clamp after it
        (``if (grp < 1) grp = 1;``, the PRK) still gives the size, and a write in another branch of
        an ``if`` (a default) does not run after it."""
        def writes(node: c_ast.Node) -> bool:
            return any(lvalue_path(n.lvalue) == variable if isinstance(n, c_ast.Assignment)
                       else n.op in (*INCREMENTS, "&") and lvalue_path(n.expr) == variable
                       for loop in find(node, c_ast.For, c_ast.While, c_ast.DoWhile)
                       for n in find(loop, c_ast.Assignment, c_ast.UnaryOp))

        for block in find(self.funcdef.body, c_ast.Compound):
            items = block.block_items or []
            holder = next((i for i, item in enumerate(items) if any(n is stmt for n in walk(item))), None)
            if holder is not None and any(writes(item) for item in items[holder + 1:]):
                return True
        return False


def _assigned_plain(node: c_ast.Node) -> set[str]:
    """The plain variables ``node`` assigns (``x = ...``, ``x += ...``, ``x++``)."""
    names = {n.lvalue.name for n in find(node, c_ast.Assignment) if isinstance(n.lvalue, c_ast.ID)}
    return names | {n.expr.name for n in find(node, c_ast.UnaryOp)
                    if n.op in INCREMENTS and isinstance(n.expr, c_ast.ID)}


def argv_setters(functions: list[c_ast.FuncDef], user_functions: set[str],
                 command_line: frozenset[str] = COMMAND_LINE) -> dict[str, set[int]]:
    """The program's functions some call gives a number converted from the command line
    (``set_num_iterations(atoi(optarg))``, OSU's benchmarks): name -> argument positions."""
    found: dict[str, set[int]] = {}
    for fd in functions:
        for call in find(fd.body, c_ast.FuncCall):
            name = callee(call)
            if name not in user_functions:
                continue
            for position, arg in enumerate(call.args.exprs if call.args else []):
                if _argv_number(arg, command_line):
                    found.setdefault(name, set()).add(position)
    return found


def input_readers(functions: list[c_ast.FuncDef], getters: frozenset[str] = frozenset()) -> dict[str, set[int]]:
    """The program's functions that read input through pointer parameters outside loops
    (``void get_input(int *n_p) { scanf("%d", n_p); }``, Pacheco's ``Get_input`` with its
    ``MPI_Bcast`` after; ``*value = atoi(word);``, UoB-HPC TeaLeaf's ``starts_get_int(key, line,
    word, int *value)``, or a getter's value stored so): name -> the parameters' positions, so
    that a call's ``&n`` there is a size read from the input, as ``scanf("%d", &n)`` is
    (CallCollector.read_by_call)."""
    found: dict[str, set[int]] = {}
    for fd in functions:
        pointers = {name: position for position, (name, typ) in enumerate(formal_parameters(fd))
                    if isinstance(typ, c_ast.PtrDecl) and isinstance(typ.type, c_ast.TypeDecl)
                    and isinstance(typ.type.type, c_ast.IdentifierType)}
        if not pointers:
            continue
        read = set()
        for call in _outside_loops(fd.body):
            name = callee(call)
            if name not in SCANNERS or name == "fread" or not call.args:
                continue
            for arg in call.args.exprs[SCANNERS[name]:]:
                if isinstance(arg, c_ast.ID) and arg.name in pointers:
                    found.setdefault(fd.decl.name, set()).add(pointers[arg.name])
                elif isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ID):
                    read.add(arg.expr.name)
        for a in _outside_loops(fd.body, c_ast.Assignment):
            pointer = _pointed(a.lvalue)
            if a.op == "=" and pointer in pointers and _is_read(a.rvalue, read, getters):
                found.setdefault(fd.decl.name, set()).add(pointers[pointer])
    return found


INPUT_LINES = ("fgets", "getline", "getdelim", "fscanf", "scanf", "fread", "feof", "fgetc", "getc", "getchar")


def _reads_input(loop: c_ast.Node, command_line: frozenset[str]) -> bool:
    """Whether ``loop`` reads its way through the input: its condition calls a reader of lines or
    items (``while (fgets(line, sizeof line, f))``), or it walks the command line (``argc``)."""
    cond = getattr(loop, "cond", None)
    if cond is None:
        return False
    return any(callee(c) in INPUT_LINES for c in find(cond, c_ast.FuncCall)) \
        or bool(names(cond) & ({"argc"} | set(command_line)))


def _pointed(lvalue: c_ast.Node) -> str | None:
    """The pointer ``*p`` or ``p[0]`` stores through: ``p``; else None."""
    if isinstance(lvalue, c_ast.UnaryOp) and lvalue.op == "*" and isinstance(lvalue.expr, c_ast.ID):
        return lvalue.expr.name
    if isinstance(lvalue, c_ast.ArrayRef) and isinstance(lvalue.name, c_ast.ID) \
            and isinstance(lvalue.subscript, c_ast.Constant) and lvalue.subscript.value == "0":
        return lvalue.name.name
    return None


def input_getters(functions: list[c_ast.FuncDef], known: frozenset[str] = frozenset()) -> frozenset[str]:
    """The program's functions that return a number read from input or converted from a string
    (``int get_int_parameter(const char *key, const char *file) { ...; sscanf(line, "%d", &value);
    return value; }``, UoB-HPC arch's; ``result = atoi(argv[i]);`` in the loop that finds the key,
    ``return exists(key) ? consume_int(key) : default_value;``, ORNL minisweep's), so that ``mesh.nx
    = get_int_parameter("nx", f)`` is a size read from the input wherever it is called
    (CallSites.getter_param), whichever key each call reads.  Each return gives such a number, a
    call of another getter (``known``: those of the program's other units), a constant or a
    parameter (a default), and one at least a number read."""
    found = set(known)
    changed = True
    while changed:
        changed = False
        for fd in functions:
            if fd.decl.name not in found and _returns_read(fd, found):
                found.add(fd.decl.name)
                changed = True
    return frozenset(found - known)


def _returns_read(fd: c_ast.FuncDef, getters: set[str]) -> bool:
    """Whether ``fd`` returns an arithmetic value that is read (see :func:`input_getters`)."""
    if return_type_names(fd) in (None, ["void"]):
        return False
    formals = {name for name, _ in formal_parameters(fd)}
    read = set()
    for call in find(fd.body, c_ast.FuncCall):
        name = callee(call)
        if name in SCANNERS and name != "fread" and call.args:
            read |= {a.expr.name for a in call.args.exprs[SCANNERS[name]:]
                     if isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ID)}
    read |= {a.lvalue.name for a in find(fd.body, c_ast.Assignment)
             if a.op == "=" and isinstance(a.lvalue, c_ast.ID) and _is_read(a.rvalue, set(), getters)}
    read |= {d.name for d in find(fd.body, c_ast.Decl) if d.name and d.init is not None
             and _is_read(d.init, set(), getters)}  # int value = strtoul(str, &next, 10);

    def kind(value: c_ast.Node | None) -> str | None:
        while isinstance(value, c_ast.Cast):
            value = value.expr
        if value is None or isinstance(value, c_ast.Constant) or isinstance(value, c_ast.UnaryOp) \
                and value.op == "-" and isinstance(value.expr, c_ast.Constant) \
                or isinstance(value, c_ast.ID) and value.name in formals - read:
            return "default"
        if isinstance(value, c_ast.TernaryOp):
            kinds = {kind(value.iftrue), kind(value.iffalse)}
            return None if None in kinds else "read" if "read" in kinds else "default"
        return "read" if _is_read(value, read, getters) else None

    kinds = [kind(ret.expr) for ret in find(fd.body, c_ast.Return)]
    return bool(kinds) and None not in kinds and "read" in kinds


def _is_read(value: c_ast.Node, read: set[str], getters: set[str]) -> bool:
    """A variable read into, or a call converting a string or of a getter."""
    while isinstance(value, c_ast.Cast):
        value = value.expr
    return isinstance(value, c_ast.ID) and value.name in read or isinstance(value, c_ast.FuncCall) \
        and (callee(value) in ARGV_CONVERTERS[:-1] or callee(value) in getters)


def _world_alias(unit, name: str) -> bool:
    """Whether the communicator variable ``name`` is MPI_COMM_WORLD wherever the unit sets it: only
    ``name = MPI_COMM_WORLD`` (or a declaration so initialised) and ``MPI_Comm_dup(MPI_COMM_WORLD,
    &name)``, at least once (EPCC's mixed-mode benchmarks: ``comm = MPI_COMM_WORLD;
    MPI_Comm_size(comm, &numMPIprocs);``).  The unit's text only: a variable another unit also
    sets is not known here."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return False
    return _world_settings(unit).get(name, False)


def _world_settings(unit) -> dict[str, bool]:
    """Every variable the unit (a UnitCollector) sets: name -> whether each setting is the world,
    read in the source's tokens (the preprocessor expands ``MPI_COMM_WORLD``, MPICH's to a cast
    constant): ``name = MPI_COMM_WORLD``, ``MPI_Comm name = MPI_COMM_WORLD``, ``MPI_Comm_dup(
    MPI_COMM_WORLD, &name)``."""
    if unit.world_settings is not None:
        return unit.world_settings
    ast = unit.ast
    found: dict[str, bool] = {}

    def followed(node: c_ast.Node, name: str, *texts: str) -> bool:
        index = unit.tok(node, name)
        tokens = unit.src.tokens if index is not None else []
        return index is not None and [t.text for t in tokens[index + 1:index + 1 + len(texts)]] == list(texts)

    for node in find(ast, c_ast.Assignment, c_ast.Decl, c_ast.UnaryOp):
        if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
            name = node.lvalue.name
            found[name] = found.get(name, True) and node.op == "=" and followed(node.lvalue, name, "=", "MPI_COMM_WORLD")
        elif isinstance(node, c_ast.Decl) and node.name and node.init is not None:
            found[node.name] = found.get(node.name, True) and followed(node, node.name, "=", "MPI_COMM_WORLD")
        elif isinstance(node, c_ast.UnaryOp) and node.op == "&" and isinstance(node.expr, c_ast.ID):
            found.setdefault(node.expr.name, True)  # the address taken: below, unless MPI_Comm_dup's
    for call in find(ast, c_ast.FuncCall):
        args = call.args.exprs if call.args else []
        for position, arg in enumerate(args):
            if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ID):
                dup = position == 1 and callee(call) == "MPI_Comm_dup" and \
                    followed(call.name, "MPI_Comm_dup", "(", "MPI_COMM_WORLD", ",")
                found[arg.expr.name] = found[arg.expr.name] and dup
    unit.world_settings = found
    return found


def _outside_loops(node: c_ast.Node, kind: type = c_ast.FuncCall):
    """The calls (or nodes of ``kind``) under ``node`` that no loop holds."""
    for _, child in node.children():
        if isinstance(child, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            continue
        if isinstance(child, kind):
            yield child
        yield from _outside_loops(child, kind)


def _argv_number(arg: c_ast.Node, command_line: frozenset[str] = COMMAND_LINE) -> bool:
    """``atoi(optarg)``, ``(int) strtol(argv[2], NULL, 10)``: a number converted from the command line."""
    while isinstance(arg, c_ast.Cast):
        arg = arg.expr
    return isinstance(arg, c_ast.FuncCall) and callee(arg) in ARGV_CONVERTERS and bool(arg.args) \
        and mentions_argv(arg.args.exprs[0], command_line)


def _global_set_from(stmt: c_ast.Node, formals: list[str], positions: set[int], globals_) -> str | None:
    """The global (or a field of one) ``stmt`` sets to one of the formals at ``positions``:
    ``options.loop = value;`` -> ``options.loop``; None for anything else."""
    if not isinstance(stmt, c_ast.Assignment) or stmt.op != "=" or not isinstance(stmt.rvalue, c_ast.ID):
        return None
    if not any(p < len(formals) and formals[p] == stmt.rvalue.name for p in positions):
        return None
    path = lvalue_path(stmt.lvalue)
    if path is None or path_root(path) not in globals_.names or path_root(path) in formals:
        return None
    typ = globals_.lookup(path) if path.isidentifier() else None
    return None if typ is not None and (typ.depth or typ.struct) else path


def _assigned(node: c_ast.Node, call: c_ast.FuncCall, default: tuple[str, str] | None) -> tuple[str, str] | None:
    """(path, C text) of the variable an assignment inside ``node`` sets from ``call`` (``if (argc != 2
    || (n = atoi(argv[1])) < 4)``: n), else ``default``."""
    for a in find(node, c_ast.Assignment):
        if a is not node and a.op == "=" and direct_value(a) is call and lvalue_path(a.lvalue):
            return lvalue_path(a.lvalue), generate(a.lvalue)
    return default

def _addressed(args: list[c_ast.Node]) -> list[tuple[str, str]]:
    """The lvalues whose addresses are passed (``&n``, ``&in.n``): (canonical path, C text)."""
    found = []
    for arg in args:
        path = lvalue_path(arg) if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" else None
        if path:
            found.append((path, generate(arg.expr)))
    return found


def _generated_args(call: c_ast.FuncCall) -> list[str]:
    """A call's arguments as pycparser writes them (when the call is not found in the source)."""
    return [generate(a) for a in (call.args.exprs if call.args else [])]
