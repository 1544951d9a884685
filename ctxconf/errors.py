"""The base of every error ctxconf reports to a person: a stable `code`, a `message`, a `hint`.

Each layer raises its own kinds (`ctxconf.runner.errors`, `ctxconf.userfiles.document`'s
SpecFileError, DataError below and the probe's ProbeDataError, one of them); a command catches
this one class, prints `describe()` and exits 2.
"""

from __future__ import annotations

from typing import ClassVar


class CtxconfError(Exception):
    """Base class. The fields are read-only: the exception is a value."""

    code: ClassVar[str] = "runner-error"
    default_hint: ClassVar[str] = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, self.default_hint if hint is None else hint)

    @property
    def message(self) -> str:
        return str(self.args[0])

    @property
    def hint(self) -> str:
        return str(self.args[1])

    def __str__(self) -> str:
        return self.message

    def describe(self) -> str:
        """The message, and the hint on its own line when there is one."""
        return f"{self.message}\nhint: {self.hint}" if self.hint else self.message


class DataError(CtxconfError):
    """An input cannot be used: a file (a price table, a profile, a results file) or a name in
    it (a provider, an API shape). The message names the file and the place."""

    code = "data"
