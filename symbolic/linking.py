"""Calls between units to straight-line functions: their operations go where they are called.

Part of perfeq stage 3 (symbolic/).  The instrumenter gives a straight-line function (no loops,
branches or jumps) no hooks and adds its operations to every caller's block
(instrument/collect/summaries.py), but it sees one file at a time: a call from another file is
announced like any call to a function of the program, the callee never enters, and its operations
were counted nowhere.  This is the linker's step: with every unit of the run at hand (the runtime
registers each unit at load time, entered or not), a call to a function that another unit defines
as straight-line adds that function's ``inlined_ops`` to the calling block (or, in a loop's header,
to that part's operations), exactly as a call within one file does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from perfeq.instrument.descriptors import CallDescriptor, UnitDescriptors

_HEADER_FIELDS = {"init": "ops_init", "cond": "ops_cond", "step": "ops_step"}


def link_units(units: Mapping[str, UnitDescriptors]) -> dict[str, UnitDescriptors]:
    """``units`` (descriptor path -> descriptors) with the operations of straight-line functions of
    other units added where they are called; units without such calls are returned unchanged (the
    same objects: read_descriptors caches them, they are never modified)."""
    inlined = _straight_line_definitions(units)
    return {path: _link(unit, inlined) for path, unit in units.items()}


def _straight_line_definitions(units: Mapping[str, UnitDescriptors]) -> dict[str, dict[str, int]]:
    """Function name -> operations per call, for the names every defining unit makes straight-line
    with the same operations (a name defined with hooks anywhere, or with different operations,
    e.g. two static functions, is left out: the runtime enters the one with hooks)."""
    found: dict[str, dict[str, int] | None] = {}
    for unit in units.values():
        for function in unit.functions:
            ops = function.inlined_ops
            if function.name in found and found[function.name] != ops:
                found[function.name] = None
            else:
                found[function.name] = ops
    return {name: ops for name, ops in found.items() if ops is not None}


def _link(unit: UnitDescriptors, inlined: Mapping[str, dict[str, int]]) -> UnitDescriptors:
    own = {function.name for function in unit.functions}
    calls = [call for call in unit.calls if call.callee not in own and call.callee in inlined]
    if not calls:
        return unit
    blocks = list(unit.blocks)
    loops = list(unit.loops)
    for call in calls:
        ops = inlined[call.callee]
        if call.header is not None:
            _add_to_header(loops, call, ops)
        elif call.block is not None:
            blocks[call.block] = replace(blocks[call.block], ops=_plus(blocks[call.block].ops, ops))
    return replace(unit, blocks=blocks, loops=loops)


def _add_to_header(loops: list, call: CallDescriptor, ops: Mapping[str, int]) -> None:
    index = call.header["loop"]
    name = _HEADER_FIELDS[call.header["part"]]
    loops[index] = replace(loops[index], **{name: _plus(getattr(loops[index], name), ops)})


def _plus(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    return {key: a.get(key, 0) + b.get(key, 0) for key in (*a, *(k for k in b if k not in a))}
