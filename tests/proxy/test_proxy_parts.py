"""The proxy's parts on their own: events split on blank lines whatever the chunks, each API's
usage read, a body decoded within its limit, secrets found and kept out, a torn record read, the
console's line of an exchange."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import pytest

from ctxconf.proxy.decode import DecodeError, Decoder
from ctxconf.proxy.live import exchange_line
from ctxconf.proxy.record import read_record
from ctxconf.proxy.redact import KeyedHash, Redactor, account_key, split_query
from ctxconf.proxy.usage import EventSplitter, UsageReader, tokens_of
from tests.proxy.upstreams import ANTHROPIC_EVENTS


def _read_in_pieces(data: bytes, size: int) -> UsageReader:
    reader = UsageReader()
    splitter = EventSplitter(reader)
    for at in range(0, len(data), size):
        splitter.feed(data[at : at + size])
    splitter.close()
    return reader


@pytest.mark.parametrize("size", [1, 7, 64, 10_000])
def test_events_are_split_on_blank_lines_not_on_chunks(size: int) -> None:
    usage = _read_in_pieces(ANTHROPIC_EVENTS.replace(b"\n", b"\r\n"), size).usage
    assert usage is not None
    # message_delta is cumulative: its output stands, its null input does not.
    assert tokens_of("anthropic", usage) == tokens_of(
        None, {"input_tokens": 5, "cache_read_input_tokens": 100,
               "cache_creation_input_tokens": 20, "output_tokens": 7}
    )  # fmt: skip


@pytest.mark.parametrize(
    ("shape", "answer", "expected"),
    [
        (
            "openai-chat",
            b'data: {"choices":[{"delta":{"content":"hi"}}],"usage":null}\n\n'
            b'data: {"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":3,'
            b'"prompt_tokens_details":{"cached_tokens":32}}}\n\ndata: [DONE]\n\n',
            (50, 32, None, 3),
        ),
        (
            "openai-responses",
            b'event: response.created\ndata: {"type":"response.created","response":'
            b'{"usage":null}}\n\nevent: response.completed\ndata: {"type":"response.completed",'
            b'"response":{"usage":{"input_tokens":80,"output_tokens":4,'
            b'"input_tokens_details":{"cached_tokens":64}}}}\n\n',
            (80, 64, None, 4),
        ),
        (
            "gemini",
            b'data: {"usageMetadata":{"promptTokenCount":9}}\n\n'
            b'data: {"usageMetadata":{"promptTokenCount":12,"cachedContentTokenCount":8,'
            b'"candidatesTokenCount":2}}\n\n',
            (12, 8, None, 2),
        ),
    ],
    ids=["chat", "responses", "gemini"],
)
def test_each_apis_streamed_usage(
    shape: str, answer: bytes, expected: tuple[int, int, None, int]
) -> None:
    usage = _read_in_pieces(answer, 5).usage
    assert usage is not None
    found = tokens_of(shape, usage)
    assert (found.input, found.read, found.written, found.output) == expected


def test_an_event_past_the_bound_is_skipped_not_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ctxconf.proxy.usage.MAX_EVENT", 100)
    reader = UsageReader()
    splitter = EventSplitter(reader)
    splitter.feed(b"data: " + b"x" * 500)
    assert len(splitter.buffer) <= 100
    splitter.feed(b"\n\n" + ANTHROPIC_EVENTS)
    assert splitter.skipped == 1 and reader.usage is not None


def test_a_body_decodes_in_pieces_and_stops_at_its_limit() -> None:
    data = b"abc" * 100_000
    packed = gzip.compress(data)
    decoder = Decoder("gzip", 1000)
    out = b"".join(
        piece for at in range(0, len(packed), 11) for piece in decoder.feed(packed[at : at + 11])
    )
    assert out == data[:1000] and decoder.over
    raw = zlib.compressobj(wbits=-15)
    deflated = raw.compress(b"{}") + raw.flush()
    assert b"".join(Decoder("deflate", 10).feed(deflated)) == b"{}"
    with pytest.raises(DecodeError, match="does not read"):
        Decoder("compress", 10)
    with pytest.raises(DecodeError):
        list(Decoder("gzip", 10).feed(b"not gzip at all"))


def test_secrets_are_found_in_headers_and_query_and_kept_out() -> None:
    path, found = split_query("/v1beta/models/g:generateContent?alt=sse&key=AIza-very-secret")
    assert path == "/v1beta/models/g:generateContent?alt=sse&key=[redacted]"
    assert found == ["AIza-very-secret"]
    headers = [("Authorization", "Bearer sk-top-secret-1"), ("X-Echo", "sk-top-secret-1 again")]
    redactor = Redactor(headers, found)
    assert redactor.headers(headers) == [
        ["Authorization", "[redacted]"],
        ["X-Echo", "[redacted] again"],
    ]
    assert account_key(headers, found) == ("authorization", "sk-top-secret-1")
    assert account_key([], found) == ("key=", "AIza-very-secret")
    assert account_key([("authorization", "Basic abc")], []) is None


def test_keyed_hashes_share_the_folders_salt(tmp_path: Path) -> None:
    first = KeyedHash.of_folder(tmp_path)
    again = KeyedHash.of_folder(tmp_path)
    assert first("k") == again("k") != first("other")
    assert (tmp_path / "salt").stat().st_mode & 0o077 == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert KeyedHash.of_folder(elsewhere)("k") != first("k")
    (elsewhere / "salt").write_text("not a salt", encoding="ascii")
    with pytest.raises(ValueError, match="not a salt"):
        KeyedHash.of_folder(elsewhere)


def test_a_torn_last_line_is_read_as_torn(tmp_path: Path) -> None:
    path = tmp_path / "proxy-x.jsonl"
    whole = json.dumps({"kind": "run"}) + "\n" + json.dumps({"kind": "exchange", "n": 1}) + "\n"
    path.write_text(whole + '{"kind": "exchange", "n": 2, "outc', encoding="utf-8")
    read = read_record(path)
    assert read.torn and [line["kind"] for line in read.lines] == ["run", "exchange"]
    path.write_text(whole, encoding="utf-8")
    assert not read_record(path).torn
    path.write_text('{"kind": "run"}\nnot json\n{"kind": "end"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=":2: not a line"):
        read_record(path)


@pytest.mark.parametrize(
    ("usage", "shown"),
    [
        ({"input": 14_211, "read": 0, "written": 14_102},
         "in 14,211  read 0  written 14,102  uncached 109"),
        ({"input": 9_000, "read": 8_192, "written": None},  # OpenAI's: no write figure
         "in 9,000  read 8,192  written -  uncached 808"),
        ({"input": None, "read": None, "written": None}, "in -  read -  written -  uncached -"),
    ],
)  # fmt: skip
def test_the_console_line_says_what_was_neither_read_nor_written(
    usage: dict[str, int | None], shown: str
) -> None:
    data = {"n": 3, "usage": usage, "response": {"status": 200}, "model": "m",
            "time": {"end": 1.5}, "outcome": "complete"}  # fmt: skip
    assert exchange_line(data) == f"#3  200  m  {shown}  1.50 s"
