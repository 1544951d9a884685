"""The runner's own errors. A broken implementation never raises: it produces a result.

Only input the runner cannot use, or an implementation that cannot even start, raises; the
command turns each into a message, its hint, and exit code 2.

    CtxconfError                  (ctxconf.errors) base: a stable `code`, a `message`, a `hint`
    ├── UsageError                arguments that cannot be used (a bad --impl, -k or path)
    ├── CaseFileError             a case file that cannot be read or is not a case file
    ├── ExpectedFailuresError     a bad --expected-failures file: every problem with its place
    ├── ImplementationStartError  the implementation did not start or did not answer hello
    ├── SpecFileError             (ctxconf.userfiles.document) a file refused, with its place
    │   └── SpecDirError          (ctxconf.specdata.folder) no spec folder, or one not to write
    └── ResultsFileError          a results file that is invalid or was cut short
"""

from __future__ import annotations

from ctxconf.errors import CtxconfError


class UsageError(CtxconfError):
    code = "usage"
    default_hint = "see `ctxconf run --help`"


class CaseFileError(CtxconfError):
    code = "case-file"
    default_hint = "`ctxconf validate FILE` checks a case file against its schema"


class ExpectedFailuresError(CtxconfError):
    code = "expected-failures"
    default_hint = (
        "the file is a YAML mapping from a case name or a rule anchor to the reason, "
        "e.g. `reread-unchanged-is-stub: ids are not passed through yet`"
    )


class ImplementationStartError(CtxconfError):
    code = "implementation-start"
    default_hint = "docs/protocol.md walks through what an implementation must answer"


class ResultsFileError(CtxconfError):
    code = "results-file"
    default_hint = "a results file is written by `ctxconf run --json PATH`"
