"""A python: implementation that never deduplicates: a repeated listing or search is shown in
full every time. It is the reference with no tool deduplicated by its result, so it fails every
case of `ctx.same.args` and its decisions; its answer on some of the decisions' cases happens
to be the other reading's, and a run must still name no decision for it."""

from __future__ import annotations

import copy
from typing import Any

from ctxconf.runner import reference_impl
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.specdata.reader import read_loop

_LOOP = copy.deepcopy(read_loop(bundled_spec_dir()))
_LOOP["context"]["dedupe"]["by_result"] = []
_IMPLEMENTATION = reference_impl.ReferenceImplementation(loop=_LOOP)

hello = reference_impl.hello


def run(request: dict[str, Any]) -> dict[str, Any]:
    return _IMPLEMENTATION.run(request)
