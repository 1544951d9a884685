"""YAML a person wrote (an add-case file, an --expected-failures file), read into what JSON carries.

PyYAML's safe loader still makes dates, bytes and sets, expands an alias bomb into billions of
values, and recurses on deep nesting or a recursive alias. This reader composes the document with
bounds (nesting `MAX_JSON_DEPTH`, alias uses `MAX_YAML_ALIASES` counting what each alias brings
with it, no alias inside its own anchor), then turns the nodes into JSON values itself: strings,
numbers within the limits, booleans, null, lists and mappings with string keys. A date stays the
text the user wrote; any other type is refused with its line:column. Each value's place is kept,
by JSON pointer, so a later problem can be shown where the user wrote it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ctxconf.userfiles import limits
from ctxconf.userfiles.document import SpecFileError, decode, display, read_bytes
from ctxconf.userfiles.jsonpos import Position, escape

_TAG = "tag:yaml.org,2002:"
_TEXT_TAGS = {_TAG + "str", _TAG + "timestamp"}  # a date keeps the characters written


class _Refused(Exception):
    def __init__(self, message: str, mark: yaml.Mark | None) -> None:
        super().__init__(message)
        self.mark = mark


class _BoundedLoader(yaml.SafeLoader):
    """A safe loader whose composer keeps to the limits and refuses a recursive alias."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._depth = 0
        self._alias_uses = 0
        self._weight: dict[str, int] = {}  # anchor -> alias uses inside what it names
        self._open: set[str] = set()  # anchors whose node is being composed

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            anchor = event.anchor
            if anchor in self._open:
                raise _Refused(f"the alias *{anchor} is inside its own anchor", event.start_mark)
            self._alias_uses += 1 + self._weight.get(anchor, 0)
            if self._alias_uses > limits.MAX_YAML_ALIASES:
                raise _Refused(
                    f"aliases expand to more than {limits.MAX_YAML_ALIASES:,} values",
                    event.start_mark,
                )
            return super().compose_node(parent, index)
        event = self.peek_event()  # type: ignore[no-untyped-call]
        anchor = getattr(event, "anchor", None)
        self._depth += 1
        if self._depth > limits.MAX_JSON_DEPTH:
            raise _Refused(
                f"lists and mappings nest deeper than {limits.MAX_JSON_DEPTH} levels",
                event.start_mark,
            )
        before = self._alias_uses
        if anchor is not None:
            self._open.add(anchor)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
            if anchor is not None:
                self._open.discard(anchor)
        if anchor is not None:
            self._weight[anchor] = self._alias_uses - before
        return node


@dataclass(frozen=True)
class UserYaml:
    path: Path
    data: Any
    where: dict[str, Position]  # JSON pointer -> where the value starts (line, column)
    # JSON pointer of a mapping's value -> where its key is written: a key that should not be
    # there is shown at itself, though its value starts on a later line.
    keys: dict[str, Position] = field(default_factory=dict)

    def position(self, at: str, key: bool = False) -> Position | None:
        """Where the value at `at` starts (with `key`: where its key is written, when it has
        one), or its nearest parent that was written."""
        if key and at in self.keys:
            return self.keys[at]
        known = at
        while known not in self.where and known:
            known = known.rsplit("/", 1)[0]
        return self.where.get(known)

    def place(self, at: str, key: bool = False) -> str:
        """`file:line:column` of the value at `at` (with `key`: of its key), or of its nearest
        parent that was written."""
        where = self.position(at, key)
        name = display(self.path)
        return f"{name}:{where}" if where is not None else name


def _position(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1, mark.index)


class _Converter:
    def __init__(self, loader: _BoundedLoader) -> None:
        self.loader = loader
        self.where: dict[str, Position] = {}
        self.keys: dict[str, Position] = {}

    def value(self, node: Node, at: str) -> Any:
        # The composer bounded the nesting and the aliases, so this recursion is bounded too.
        self.where.setdefault(at, _position(node.start_mark))
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        if isinstance(node, SequenceNode) and node.tag == _TAG + "seq":
            return [self.value(item, f"{at}/{index}") for index, item in enumerate(node.value)]
        if isinstance(node, MappingNode) and node.tag == _TAG + "map":
            written: set[str] = set()
            for key_node, _ in node.value:
                key = self.key(key_node)
                if key in written:
                    raise _Refused(f"the key {key!r} is given twice", key_node.start_mark)
                written.add(key)
            # `<<: *base` merges as YAML 1.1 means it: the keys written here win over the base's.
            self.loader.flatten_mapping(node)
            mapping: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = self.key(key_node)
                self.keys.setdefault(f"{at}/{escape(key)}", _position(key_node.start_mark))
                mapping[key] = self.value(value_node, f"{at}/{escape(key)}")
            return mapping
        raise _Refused(f"a {_tag_name(node.tag)} value, which JSON cannot carry", node.start_mark)

    def key(self, node: Node) -> str:
        if isinstance(node, ScalarNode) and node.tag == _TAG + "merge":
            return "<<"
        key = self.scalar(node) if isinstance(node, ScalarNode) else None
        if not isinstance(key, str):
            raise _Refused("a key that is not text: JSON keys are strings", node.start_mark)
        return key

    def scalar(self, node: ScalarNode) -> Any:
        tag = node.tag
        if tag in _TEXT_TAGS:
            return node.value
        if tag == _TAG + "null":
            return None
        if tag == _TAG + "bool":
            return self.loader.construct_yaml_bool(node)
        if tag == _TAG + "int":
            digits = sum(char.isalnum() for char in node.value)
            if digits > limits.MAX_INTEGER_DIGITS:
                raise _Refused(
                    f"an integer of {digits:,} digits (at most {limits.MAX_INTEGER_DIGITS:,})",
                    node.start_mark,
                )
            return self.loader.construct_yaml_int(node)
        if tag == _TAG + "float":
            if len(node.value) > limits.MAX_INTEGER_DIGITS:
                raise _Refused(f"a number of {len(node.value):,} characters", node.start_mark)
            number = self.loader.construct_yaml_float(node)
            if not math.isfinite(number):
                raise _Refused(
                    f"{node.value} is not a finite number, which JSON needs", node.start_mark
                )
            # The exact decimal the text writes, as a case file holds it (not the double).
            try:
                return Decimal(node.value.replace("_", ""))
            except InvalidOperation:  # a YAML-only spelling (`1:30.5`): the value YAML reads
                return Decimal(repr(number))
        raise _Refused(f"a {_tag_name(tag)} value, which JSON cannot carry", node.start_mark)


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


def load_user_yaml(path: Path, what: str = "YAML file") -> UserYaml:
    """The one document of a YAML file as JSON values, with their places; SpecFileError with the
    file and line:column of the first thing refused."""
    name = display(path)
    text = decode(read_bytes(path, what), name)
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        converter = _Converter(loader)
        data = None if node is None else converter.value(node, "")
    except _Refused as error:
        raise SpecFileError(
            name, str(error), place=_mark(error.mark), problem_code="yaml"
        ) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        raise SpecFileError(
            name, f"not valid YAML: {problem}", place=_mark(mark), problem_code="yaml"
        ) from None
    except RecursionError:  # nesting in a flow collection the scanner itself recursed on
        raise SpecFileError(
            name, f"nests deeper than {limits.MAX_JSON_DEPTH} levels", problem_code="yaml"
        ) from None
    finally:
        loader.dispose()
    return UserYaml(path, data, converter.where, converter.keys)


def _mark(mark: yaml.Mark | None) -> tuple[int, int] | None:
    return (mark.line + 1, mark.column + 1) if mark is not None else None
