"""The runner's own errors. A broken implementation never raises: it produces a result.

Only input the runner cannot use, or an implementation that cannot even start, raises; the
command turns each into a message, its hint, and exit code 2.

    RunnerError                   base: a stable `code`, a `message` and a `hint`
    ├── UsageError                arguments that cannot be used (a bad --impl, -k or path)
    ├── CaseFileError             a case file that cannot be read or is not a case file
    ├── ExpectedFailuresError     a bad --expected-failures file: every problem with its place
    ├── ImplementationStartError  the implementation did not start or did not answer hello
    ├── SpecFileError             (ctxconf.specfile) a spec or YAML file refused, with its place
    │   └── SpecDirError          (ctxconf.specdir) no spec folder, or one never to be written
    └── ResultsFileError          a results file that is invalid or was cut short
"""

from __future__ import annotations

from typing import ClassVar


class RunnerError(Exception):
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


class UsageError(RunnerError):
    code = "usage"
    default_hint = "see `ctxconf run --help`"


class CaseFileError(RunnerError):
    code = "case-file"
    default_hint = "`ctxconf validate FILE` checks a case file against its schema"


class ExpectedFailuresError(RunnerError):
    code = "expected-failures"
    default_hint = (
        "the file is a YAML mapping from a case name or a rule anchor to the reason, "
        "e.g. `reread-unchanged-is-stub: ids are not passed through yet`"
    )


class ImplementationStartError(RunnerError):
    code = "implementation-start"
    default_hint = "docs/protocol.md walks through what an implementation must answer"


class ResultsFileError(RunnerError):
    code = "results-file"
    default_hint = "a results file is written by `ctxconf run --json PATH`"
