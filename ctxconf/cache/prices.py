"""What a session's cache figures cost at list prices: the bundled table
(`cache/data/prices.json`, its date and sources in it, held to `prices.schema.json` beside it),
or the rows of a file a user gives laid over it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from ctxconf.errors import DataError
from ctxconf.userfiles.jsonpos import pointer
from ctxconf.userfiles.limits import LimitError, parse_json

from .outcome import Figures

MILLION = Decimal(1_000_000)
ANY_MODEL = "*"
# What may follow a row's model id in a request's: a date, or a -latest or -preview suffix.
_SUFFIX = re.compile(r"(?:-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|-preview)*")


@dataclass(frozen=True)
class Price:
    """One model's list prices per million tokens, with the day they were read and where."""

    provider: str
    model: str
    input: Decimal
    cache_read: Decimal
    cache_write: Decimal  # 5-minute (or the provider's only) write
    cache_write_1h: Decimal
    output: Decimal
    date: str
    source: str


@dataclass(frozen=True)
class PriceTable:
    rows: tuple[Price, ...]

    def find(self, provider: str, model: str) -> Price | None:
        """The row for a model id as a request names it (`openai/gpt-5.4`, a dated Claude id):
        the longest matching id of the provider, else its `*` row."""
        name = model.rsplit("/", 1)[-1].lower()
        mine = [row for row in self.rows if row.provider == provider]
        matching = [
            row
            for row in mine
            if name.startswith(row.model.lower())
            and _SUFFIX.fullmatch(name[len(row.model) :]) is not None
        ]
        if matching:
            return max(matching, key=lambda row: len(row.model))
        return next((row for row in mine if row.model == ANY_MODEL), None)


@cache
def _validator() -> Draft202012Validator:
    file = resources.files("ctxconf.cache") / "data" / "prices.schema.json"
    return Draft202012Validator(json.loads(file.read_text(encoding="utf-8")))


def _validate(data: Any, source: str) -> None:
    """Raise DataError naming the first problem by JSON pointer, all problems counted."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if not errors:
        return
    at = pointer(errors[0].absolute_path) or "/"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    raise DataError(f"{source}: at {at}: {errors[0].message}{more}")


def _decimal(value: Any) -> Decimal:
    return Decimal(str(value))


def table_from_data(data: Mapping[str, Any], source: str) -> PriceTable:
    _validate(data, source)
    sources: Mapping[str, str] = data["sources"]
    rows = []
    for row in data["models"]:
        write = _decimal(row["cache_write"] if row["cache_write"] is not None else row["input"])
        hour = row["cache_write_1h"]
        rows.append(
            Price(
                provider=row["provider"],
                model=row["model"],
                input=_decimal(row["input"]),
                cache_read=_decimal(row["cache_read"]),
                cache_write=write,
                cache_write_1h=_decimal(hour) if hour is not None else write,
                output=_decimal(row["output"]),
                date=data["date"],
                source=row.get("source") or sources.get(row["provider"], source),
            )
        )
    return PriceTable(tuple(rows))


def parse_prices(text: str, source: str) -> PriceTable:
    """A price table from its JSON text; DataError naming `source` and the place."""
    try:
        data = parse_json(text)  # bounded like every JSON read from outside
    except json.JSONDecodeError as e:
        raise DataError(f"{source}:{e.lineno}:{e.colno}: {e.msg}") from None
    except LimitError as e:
        raise DataError(f"{source}: {e}") from None
    return table_from_data(data, source)


def bundled_prices() -> PriceTable:
    file = resources.files("ctxconf.cache") / "data" / "prices.json"
    return parse_prices(file.read_text(encoding="utf-8"), "prices.json")


def with_overrides(base: PriceTable, override: PriceTable) -> PriceTable:
    """`base` with each row of `override` in place of the row of the same provider and model;
    rows `base` lacks are added."""
    replaced = {(row.provider, row.model) for row in override.rows}
    kept = tuple(row for row in base.rows if (row.provider, row.model) not in replaced)
    return PriceTable(kept + override.rows)


def load_prices(path: Path | None = None) -> PriceTable:
    """The bundled table, with the rows of the user's file at `path` over it."""
    base = bundled_prices()
    if path is None:
        return base
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"{path}: cannot be read: {e}") from None
    return with_overrides(base, parse_prices(text, str(path)))


@dataclass(frozen=True)
class Cost:
    """US dollars: tokens neither read nor written, read, written, and the output."""

    input: Decimal
    cache_read: Decimal
    cache_write: Decimal
    output: Decimal

    @property
    def total(self) -> Decimal:
        return self.input + self.cache_read + self.cache_write + self.output


def request_cost(figures: Figures, price: Price, output_tokens: int = 0) -> Cost:
    short_write = figures.cache_write - figures.cache_write_1h
    return Cost(
        input=figures.neither * price.input / MILLION,
        cache_read=figures.cache_read * price.cache_read / MILLION,
        cache_write=(
            short_write * price.cache_write + figures.cache_write_1h * price.cache_write_1h
        )
        / MILLION,
        output=output_tokens * price.output / MILLION,
    )


def loss_cost(figures: Figures, parts: Sequence[int], price: Price) -> tuple[Decimal, ...]:
    """What each part of a request's loss cost more than reading it would have: its tokens,
    taken in order from just past what was read, at the price each was billed (an hour's write,
    then a five minutes' write, then plain input: the order a request's marks take), less the
    read price."""
    left = [figures.cache_write_1h, figures.cache_write - figures.cache_write_1h, figures.neither]
    rates = [price.cache_write_1h, price.cache_write, price.input]
    costs = []
    for tokens in parts:
        cost = Decimal(0)
        for band, rate in enumerate(rates):
            taken = min(tokens, left[band])
            cost += taken * (rate - price.cache_read) / MILLION
            left[band] -= taken
            tokens -= taken
        costs.append(cost)
    return tuple(costs)


def session_cost(
    figures: Sequence[Figures], price: Price, output_tokens: Iterable[int] = ()
) -> Cost:
    """The cost of a session's requests (a refused request costs nothing), each with its output
    tokens where given."""
    outputs = list(output_tokens)
    outputs += [0] * (len(figures) - len(outputs))
    costs = [request_cost(f, price, out) for f, out in zip(figures, outputs, strict=False)]
    return Cost(
        input=sum((c.input for c in costs), Decimal(0)),
        cache_read=sum((c.cache_read for c in costs), Decimal(0)),
        cache_write=sum((c.cache_write for c in costs), Decimal(0)),
        output=sum((c.output for c in costs), Decimal(0)),
    )


__all__ = [
    "Cost",
    "Price",
    "PriceTable",
    "bundled_prices",
    "load_prices",
    "loss_cost",
    "parse_prices",
    "request_cost",
    "session_cost",
    "table_from_data",
    "with_overrides",
]
