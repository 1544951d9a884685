"""One direction of an exchange as it passes: the sha256 and count of the bytes received and of
the bytes forwarded (each taken where it happens, so a difference would show), and a copy of at
most `limit` bytes for the record (none when `keep` is False: a stream, read as it passes).
Past the limit the copy stops and says it was cut; the bytes go on being forwarded and hashed."""

from __future__ import annotations

import hashlib


class Tee:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._received = hashlib.sha256()
        self._forwarded = hashlib.sha256()
        self.received_bytes = 0
        self.forwarded_bytes = 0
        self.copy = bytearray()
        self.keep = True
        self.truncated = False

    def received(self, data: bytes) -> None:
        self._received.update(data)
        self.received_bytes += len(data)
        if not self.keep:
            return
        room = self.limit - len(self.copy)
        if len(data) > room:
            self.truncated = True
        if room > 0:
            self.copy += data[:room]

    def forwarded(self, data: bytes) -> None:
        self._forwarded.update(data)
        self.forwarded_bytes += len(data)

    @property
    def received_sha256(self) -> str:
        return self._received.hexdigest()

    @property
    def forwarded_sha256(self) -> str:
        return self._forwarded.hexdigest()


__all__ = ["Tee"]
