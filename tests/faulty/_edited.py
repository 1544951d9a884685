"""The reference with some of its source lines edited, loaded as a package of its own.

The edited modules are compiled from the edited text and put in `sys.modules` under the new
package's name before anything imports them; every other module of the package is loaded from
`reference/` as it is. The real reference is never touched, so the fuzzer's own reference, in
the same process, stays correct.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ctxconf.reference
from ctxconf.reference.texts import read_loop
from ctxconf.runner.protocol import PROTOCOL_VERSION

REFERENCE = Path(ctxconf.reference.__file__).resolve().parent
# Modules in the order they import one another, so an edited module never imports an unedited
# copy of another edited one.
_ORDER = (
    "texts",
    "area",
    "context.config",
    "context.lines",
    "context.cap",
    "context.diff",
    "context.session",
    "context.adapter",
    "prefix.usage",
    "prefix.config",
    "prefix.session",
    "history.store",
    "history.core",
    "history.ladder",
    "history.moves",
    "history.sizing",
    "history.session",
    "areas",
)

Edits = Mapping[str, Sequence[tuple[str, str]]]  # module -> (old, new) replacements
Message = dict[str, Any]


def _package(name: str, folder: Path) -> types.ModuleType:
    package = types.ModuleType(name)
    package.__path__ = [str(folder)]
    package.__package__ = name
    package.__file__ = str(folder / "__init__.py")
    sys.modules[name] = package
    return package


def edited_reference(name: str, edits: Edits) -> types.ModuleType:
    """The reference package, with `edits` applied, as `_faulty_NAME`."""
    package_name = f"_faulty_{name}"
    if package_name in sys.modules:
        return sys.modules[package_name]
    package = _package(package_name, REFERENCE)
    # The area folders holding an edited module, set up (not yet run) before it is compiled.
    folders = sorted({module.rpartition(".")[0] for module in edits} - {""})
    for folder in folders:
        _package(f"{package_name}.{folder}", REFERENCE / folder)
    for module in sorted(edits, key=_ORDER.index):
        path = REFERENCE / f"{module.replace('.', '/')}.py"
        source = path.read_text(encoding="utf-8")
        for old, new in edits[module]:
            if source.count(old) != 1:
                raise AssertionError(f"{name}: {old!r} occurs {source.count(old)} times in {path}")
            source = source.replace(old, new)
        submodule = types.ModuleType(f"{package_name}.{module}")
        submodule.__package__ = submodule.__name__.rpartition(".")[0]
        submodule.__file__ = str(path)
        sys.modules[submodule.__name__] = submodule
        exec(compile(source, str(path), "exec"), submodule.__dict__)
    for folder in folders:
        init = REFERENCE / folder / "__init__.py"
        module_dict = sys.modules[f"{package_name}.{folder}"].__dict__
        exec(compile(init.read_text(encoding="utf-8"), str(init), "exec"), module_dict)
    init = REFERENCE / "__init__.py"
    exec(compile(init.read_text(encoding="utf-8"), str(init), "exec"), package.__dict__)
    return package


def implementation(
    name: str, edits: Edits, areas: Sequence[str] = ("context",)
) -> tuple[Callable[[], Message], Callable[[Message], Message]]:
    """`hello()` and `run(request)` of the protocol, answered by the edited reference in
    `areas`."""
    package = edited_reference(name, edits)
    loop = read_loop()

    def hello() -> Message:
        return {
            "protocol": PROTOCOL_VERSION,
            "implementation": {"name": f"faulty-{name}", "version": "0", "language": "python"},
            "areas": list(areas),
        }

    def run(request: Message) -> Message:
        seq = request.get("seq")
        area = request.get("area")
        if area not in areas:
            return {"seq": seq, "skipped": f"only {', '.join(areas)}"}
        try:
            outputs = package.run_area_case(area, request["case"], loop)
        except (KeyError, TypeError, ValueError) as error:
            return {"seq": seq, "error": f"{type(error).__name__}: {error}"}
        return {"seq": seq, "outputs": outputs}

    return hello, run
