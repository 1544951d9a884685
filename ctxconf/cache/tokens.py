"""The one token estimate of the cache audit, the same for every harness and every provider.

A unit's tokens are its canonical bytes (UTF-8) divided by four, rounded up. Bytes, not
characters, because a cache compares bytes and a text outside ASCII costs a tokenizer more than
its characters suggest; per unit, so that a prefix counts the same in every request that carries
it, whatever follows it. A part of a unit counts only its whole tokens: a token is shared only
once all its bytes are.
"""

from __future__ import annotations

BYTES_PER_TOKEN = 4


def unit_tokens(data: bytes) -> int:
    """The tokens of one unit's bytes, rounded up."""
    return -(-len(data) // BYTES_PER_TOKEN)


def partial_tokens(shared_bytes: int) -> int:
    """The tokens of the first `shared_bytes` of a unit that is not shared whole, rounded down."""
    return shared_bytes // BYTES_PER_TOKEN


__all__ = ["BYTES_PER_TOKEN", "partial_tokens", "unit_tokens"]
