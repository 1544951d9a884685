"""Differential fuzzing: random sessions run on an implementation and on the reference.

`fuzz` draws sessions of an area (`context` by default, or `prefix`) from
`ctxconf.fuzzing.strategies.sessions_of`, runs each on the implementation and on
the reference, and raises inside the Hypothesis test on the first disagreement, so Hypothesis
shrinks the session to a minimal one that still disagrees. An implementation that fails a
session (crashes, hangs, answers with an error or a broken message) disagrees too.

A finding becomes a case file (`finding_document`): one case, its expected texts from the
reference, its rules guessed from the step that differs, ready for review and for the suite.

    execute(FuzzRequest(impl="cmd:./my-harness --conformance", seed=1), stdout=..., stderr=...)

Exit codes: 0 nothing found, 1 a disagreement, 2 unusable arguments or an implementation that
cannot start.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, TextIO

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, HypothesisWarning
from jsonschema import Draft202012Validator

from ctxconf.atomic import write_text_atomic
from ctxconf.fuzzing.strategies import ops_of, sessions_of
from ctxconf.paths import schemas_dir
from ctxconf.reference import AREAS, ContextConfig, PrefixConfig, run_area_case, run_case
from ctxconf.reference.context import equivalent_diff
from ctxconf.reference.texts import Texts, read_loop
from ctxconf.runner.errors import ImplementationStartError, RunnerError, UsageError
from ctxconf.runner.protocol import ProtocolError, parse_hello, parse_run_response, run_request
from ctxconf.runner.transports import CaseFailure, KeepsStderr, Transport, transport_factory
from ctxconf.textdiff import visible, visible_diff

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
AREA = "context"  # the default area
DEFAULT_EXAMPLES = 500
UNLIMITED = 10**9  # sessions, when only --max-time bounds the run
# Sessions per Hypothesis run: a run keeps a record of every session it drew (so it never draws
# one twice), which grows without end over a long --max-time; each batch starts afresh.
BATCH = DEFAULT_EXAMPLES
DEFAULT_TIMEOUT = 10.0
DEFAULT_REPORTS = Path("reports")

Case = dict[str, Any]  # {"limits"?: {...}, "steps": [...]}, as the protocol carries it
SessionRunner = Callable[[Case], list[str]]


class SessionFailed(Exception):
    """The implementation failed a session as a whole: no outputs to compare."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr = stderr


class _Disagreement(Exception):
    """Raised inside the Hypothesis test so that it shrinks the session."""


class _TimeUp(BaseException):
    """Raised inside the Hypothesis test when --max-time is up. Not an Exception, so Hypothesis
    does not take it for a failure to shrink: like KeyboardInterrupt, it ends the run."""


# -- the implementation under test -------------------------------------------------------------


class Implementation:
    """An implementation reached through any transport `ctxconf run` takes, as a SessionRunner.

    Raises `RunnerError` when the SPEC is unusable or the implementation does not start.
    """

    def __init__(self, spec: str, *, timeout: float, area: str = AREA) -> None:
        self._timeout = timeout
        self._area = area
        self._seq = 0
        self._transport: Transport = transport_factory(spec, timeout=timeout)()
        try:
            hello = parse_hello(self._transport.hello())
        except (CaseFailure, ProtocolError) as error:
            stderr = error.stderr if isinstance(error, CaseFailure) else ""
            if not stderr and isinstance(self._transport, KeepsStderr):
                stderr = self._transport.take_stderr()
            self.close()
            detail = f"\n--- its stderr:\n{stderr.rstrip()}" if stderr.strip() else ""
            raise ImplementationStartError(
                f"the implementation did not answer hello: {error.message}{detail}"
            ) from None
        if area not in hello.areas:
            self.close()
            raise ImplementationStartError(
                f"the implementation does not list the area {area!r} in its hello "
                f"(it lists {', '.join(hello.areas) or 'none'})"
            )
        self.name = f"{hello.implementation.name} {hello.implementation.version}"

    def __call__(self, case: Case) -> list[str]:
        self._seq += 1
        request = run_request(self._seq, self._area, case)
        try:
            answer = self._transport.run(request, self._timeout)
            reply = parse_run_response(answer, self._seq, len(case["steps"]))
        except CaseFailure as failure:
            raise SessionFailed(f"{failure.kind}: {failure.message}", failure.stderr) from None
        except ProtocolError as error:
            raise SessionFailed(f"broken response: {error.message}") from None
        if reply.kind == "error":
            raise SessionFailed(f"the implementation answered with an error: {reply.message}")
        if reply.kind == "skipped":
            raise SessionFailed(f"the implementation skipped the session: {reply.message}")
        return list(reply.outputs)

    def close(self) -> None:
        self._transport.close()


# -- the search --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FuzzOptions:
    examples: int = DEFAULT_EXAMPLES
    seed: int = 0
    max_time: float | None = None  # seconds; None: no limit
    accept_equivalent_diffs: bool = False
    area: str = AREA
    ops: frozenset[str] | None = None  # the ops sessions are made of; None: every op


@dataclass(frozen=True)
class Finding:
    """A session on which the implementation departs from the reference."""

    case: Case
    expected: tuple[str, ...]
    actual: tuple[str, ...] | None  # None: the implementation failed the session
    differing: tuple[int, ...]  # the steps whose texts differ
    failure: str = ""
    stderr: str = ""
    area: str = AREA

    @property
    def step(self) -> int:
        """The step the finding is about: the first that differs, or the last one run."""
        return self.differing[0] if self.differing else len(self.case["steps"]) - 1


@dataclass(frozen=True)
class FuzzOutcome:
    seed: int
    examples: int  # sessions generated (up to and including the first finding)
    shrink_runs: int  # sessions run while shrinking
    elapsed: float
    timed_out: bool
    finding: Finding | None


@dataclass
class _Progress:
    examples: int = 0
    shrink_runs: int = 0
    timed_out: bool = False
    finding: Finding | None = None


@lru_cache(maxsize=1)
def _bundled_loop() -> dict[str, Any]:
    return read_loop()


def reference_outputs(area: str, case: Case, config: ContextConfig) -> list[str]:
    """The reference's texts for `case`: the context area with `config`, any other area with
    the bundled loop.json."""
    if area == AREA:
        return run_case(case, config)
    return run_area_case(area, case, _bundled_loop())


def differing_steps(
    case: Case,
    expected: Sequence[str],
    actual: Sequence[str],
    config: ContextConfig,
    *,
    accept_equivalent_diffs: bool = False,
) -> tuple[int, ...]:
    """The steps whose actual text is not the expected one (nor, when accepted, an equivalent
    diff, judged as `ctxconf run --accept-equivalent-diffs` judges it)."""
    differing = []
    for index, (step, want, have) in enumerate(zip(case["steps"], expected, actual, strict=True)):
        if want == have:
            continue
        if (
            accept_equivalent_diffs
            and step["op"] in _DIFF_OPS
            and equivalent_diff.check(
                step,
                want,
                have,
                context=config.diff_context,
                no_newline=config.texts.render("no_newline"),
            ).equivalent
        ):
            continue
        differing.append(index)
    return tuple(differing)


def compare(
    case: Case,
    implementation: SessionRunner,
    config: ContextConfig,
    *,
    accept_equivalent_diffs: bool = False,
    area: str = AREA,
) -> Finding | None:
    """Run `case` on both sides; a Finding when they disagree."""
    expected = tuple(reference_outputs(area, case, config))
    try:
        actual = tuple(implementation(case))
    except SessionFailed as failure:
        return Finding(case, expected, None, (), failure.message, failure.stderr, area)
    differing = differing_steps(
        case, expected, actual, config, accept_equivalent_diffs=accept_equivalent_diffs
    )
    return Finding(case, expected, actual, differing, area=area) if differing else None


def fuzz(
    implementation: SessionRunner,
    options: FuzzOptions,
    config: ContextConfig,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> FuzzOutcome:
    """Search for a session on which `implementation` departs from the reference, and shrink it."""
    started = clock()
    deadline = None if options.max_time is None else started + options.max_time
    progress = _Progress()

    def check(case: Case) -> Finding | None:
        return compare(
            case,
            implementation,
            config,
            accept_equivalent_diffs=options.accept_equivalent_diffs,
            area=options.area,
        )

    strategy = sessions_of(options.area, options.ops)
    left = options.examples
    batch = 0
    while left > 0 and progress.finding is None and not progress.timed_out:
        size = min(BATCH, left)
        _search_batch(
            strategy, size, batch_seed(options.seed, batch), check, progress, deadline, clock
        )
        left -= size
        batch += 1
    if progress.finding is not None:
        progress.finding = _polish(progress, check, deadline, clock)
    return FuzzOutcome(
        seed=options.seed,
        examples=progress.examples,
        shrink_runs=progress.shrink_runs,
        elapsed=clock() - started,
        timed_out=progress.timed_out,
        finding=progress.finding,
    )


def batch_seed(seed: int, batch: int) -> int:
    """The seed of a run's `batch`-th batch: the run's own for the first, so that a run of at
    most one batch draws what a single Hypothesis run with that seed draws."""
    if batch == 0:
        return seed
    digest = hashlib.sha256(f"{seed}/{batch}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _search_batch(
    strategy: st.SearchStrategy[Case],
    size: int,
    seed: int,
    check: Callable[[Case], Finding | None],
    progress: _Progress,
    deadline: float | None,
    clock: Callable[[], float],
) -> None:
    """Up to `size` sessions in one Hypothesis run, shrinking the first that disagrees."""

    @hypothesis_seed(seed)
    @settings(
        max_examples=size,
        database=None,
        derandomize=False,
        deadline=None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
        verbosity=Verbosity.quiet,
    )
    @given(strategy)
    def probe(case: Case) -> None:
        if deadline is not None and clock() >= deadline:
            progress.timed_out = True
            raise _TimeUp
        if progress.finding is None:
            progress.examples += 1
        else:
            progress.shrink_runs += 1
        finding = check(case)
        if finding is not None:
            # Shrinking only ever runs smaller sessions, so the last one that failed is the
            # smallest found.
            progress.finding = finding
            raise _Disagreement

    try:
        with warnings.catch_warnings():
            # Hypothesis warns when it describes a large session; the finding is shown anyway.
            warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
            probe()
    except (_Disagreement, _TimeUp):
        pass
    except HypothesisException:
        # A nondeterministic implementation can make Hypothesis call the failure flaky; the
        # smallest failing session seen is still a finding.
        if progress.finding is None:
            raise


def _without(mapping: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k != key}


def _smaller(case: Case) -> Iterator[Case]:
    """Sessions one edit simpler than `case`: a step, the limits, an optional field, or a file
    of a patch left out."""
    steps = case["steps"]
    if steps and steps[0]["op"] == "start":
        yield from _smaller_prefix(case)
        return
    if len(steps) > 1:
        for index in reversed(range(len(steps))):
            yield {**case, "steps": steps[:index] + steps[index + 1 :]}
    if "limits" in case:
        yield _without(case, "limits")
    for index, step in enumerate(steps):
        simpler = [_without(step, key) for key in ("id", "note", "offset", "limit") if key in step]
        files = step.get("files", [])
        if step["op"] == "apply_patch" and len(files) > 1:
            simpler += [{**step, "files": files[:i] + files[i + 1 :]} for i in range(len(files))]
        for replacement in simpler:
            yield {**case, "steps": [*steps[:index], replacement, *steps[index + 1 :]]}


_PREFIX_REQUESTS = frozenset({"user", "wrap_up", "compact"})


def _smaller_prefix(case: Case) -> Iterator[Case]:
    """A prefix session one step, or one optional part of its start, simpler; never its start
    step, and never a response before any request (the reference refuses the other slips)."""
    start, *rest = case["steps"]
    for index in reversed(range(len(rest))):
        steps = rest[:index] + rest[index + 1 :]
        first_request = next(
            (i for i, s in enumerate(steps) if s["op"] in _PREFIX_REQUESTS), len(steps)
        )
        if any(s["op"] in ("response", "call") for s in steps[:first_request]):
            continue
        yield {**case, "steps": [start, *steps]}
    for key in ("personality", "files", "mcp"):
        if key in start:
            yield {**case, "steps": [_without(start, key), *rest]}


def _polish(
    progress: _Progress,
    check: Callable[[Case], Finding | None],
    deadline: float | None,
    clock: Callable[[], float],
) -> Finding:
    """Greedily simplify Hypothesis's smallest session while it still disagrees.

    Hypothesis deletes steps through the choices that generated them; a step whose meaning
    depends on an earlier one (a re-read that shows the content a first read drew) can resist
    that. Leaving steps out of the session itself gets past it.
    """
    assert progress.finding is not None
    finding = progress.finding
    improved = True
    while improved:
        improved = False
        for candidate in _smaller(finding.case):
            if deadline is not None and clock() >= deadline:
                progress.timed_out = True
                return finding
            progress.shrink_runs += 1
            try:
                smaller = check(candidate)
            except (KeyError, TypeError, ValueError):
                continue  # the reference refuses it: not a valid session
            if smaller is not None:
                finding, improved = smaller, True
                break
    return finding


# -- from a finding to a case ------------------------------------------------------------------

# Texts (templates of loop.json) that say which rule a differing step is about, in the order
# the guessed rules are listed.
_RULE_BY_TEXT: tuple[tuple[str, str], ...] = (
    ("read_stub", "ctx.stub.unchanged"),
    ("elided", "ctx.cap.elided"),
    ("cut", "ctx.cap.cut"),
    ("same_result", "ctx.same.result"),
    ("compaction_heading", "ctx.compact.table"),
    ("read_empty", "ctx.read.empty"),
    ("read_past_end", "ctx.read.past-end"),
    ("read_more", "ctx.read.more"),
    ("recall_unknown", "ctx.recall.unknown"),
    ("recall_past_end", "ctx.recall.past-end"),
    ("created", "ctx.edit.created"),
    ("no_change", "ctx.edit.no-change"),
    ("no_newline", "ctx.edit.no-newline"),
    ("no_output", "ctx.output.empty"),
)
_HUNK = re.compile(r"^@@ ", re.MULTILINE)
_DIFF_OPS = frozenset({"edit", "multiedit", "write", "apply_patch"})
# Characters that some code takes for line ends; in the context area they are not.
_LINE_LIKE = re.compile("[\r\v\f\x85\u2028\u2029]")
_RULE_BY_OP: Mapping[str, str] = {
    "read": "ctx.read.bracket",
    "edit": "ctx.edit.diff",
    "multiedit": "ctx.edit.multiedit",
    "write": "ctx.edit.diff",
    "delete": "ctx.edit.deleted",
    "apply_patch": "ctx.edit.patch",
    "output": "ctx.cap.over",
    "recall": "ctx.recall.window",
    "compact": "ctx.compact.none",
    "reply": "ctx.stub.request",
}
# The prefix area: the note lines (context.note templates) and the refusals (prefix.texts) a
# differing step shows, and the rule of each op when nothing more telling differs.
_PFX_RULE_BY_NOTE: tuple[tuple[str, str], ...] = (
    ("date", "pfx.note.date"),
    ("plan_ended", "pfx.note.plan-ended"),
    ("mode", "pfx.note.mode"),
    ("personal", "pfx.note.personality"),
    ("file", "pfx.note.file"),
    ("empty", "pfx.note.file-empty"),
    ("plan_own", "pfx.note.plan-edit"),
    ("mcp", "pfx.note.mcp"),
)
_PFX_RULE_BY_REFUSAL: tuple[tuple[str, str], ...] = (
    ("wrap_up_refused", "pfx.wrap.no-call"),
    ("withdrawn", "pfx.tools.withdrawn"),
    ("unavailable", "pfx.tools.requires"),
)
_PFX_RULE_BY_OP: Mapping[str, str] = {
    "start": "pfx.system.once",
    "user": "pfx.note.form",
    "date": "pfx.note.date",
    "mode": "pfx.note.mode",
    "personality": "pfx.note.personality",
    "file": "pfx.note.file",
    "plan": "pfx.note.plan-edit",
    "withdraw": "pfx.tools.withdrawn",
    "switch": "pfx.system.switch",
    "call": "pfx.tools.requires",
    "wrap_up": "pfx.wrap.request",
    "compact": "pfx.compact.turn",
    "usage": "pfx.usage.shown",
    "history": "pfx.note.stored",
}
_PROVIDERS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "llamacpp",
    "vllm",
    "ollama",
    "openrouter",
    "deepseek",
    "mistral",
    "bedrock",
)
RULES_GUESSED = frozenset(
    [rule for _, rule in _RULE_BY_TEXT]
    + list(_RULE_BY_OP.values())
    + ["ctx.edit.diff", "ctx.edit.capped", "ctx.text.lines"]
    + [rule for _, rule in _PFX_RULE_BY_NOTE + _PFX_RULE_BY_REFUSAL]
    + list(_PFX_RULE_BY_OP.values())
    + [f"pfx.usage.{name}" for name in _PROVIDERS]
    + ["pfx.usage.stream", "pfx.usage.unreported", "pfx.system.number", "pfx.tools.fixed"]
)


def _strings(value: object) -> Iterator[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _template_pattern(texts: Texts, name: str) -> re.Pattern[str]:
    """A regular expression matching any text the template `name` renders."""
    marker = "\x00"
    rendered = texts.render(name, **{p: marker for p in texts.placeholders(name)})
    return re.compile(".*?".join(re.escape(part) for part in rendered.split(marker)), re.DOTALL)


def guess_rules(finding: Finding, config: ContextConfig) -> list[str]:
    """Rules the differing step probably exercises, from its texts and its op: to be reviewed."""
    if finding.area == "prefix":
        return guess_prefix_rules(finding, PrefixConfig.from_loop(_bundled_loop()))
    step = finding.case["steps"][finding.step]
    texts = [finding.expected[finding.step]]
    if finding.actual is not None:
        texts.append(finding.actual[finding.step])
    rules: list[str] = []

    def add(rule: str) -> None:
        if rule not in rules:
            rules.append(rule)

    for name, rule in _RULE_BY_TEXT:
        pattern = _template_pattern(config.texts, name)
        if any(pattern.search(text) for text in texts):
            add(rule)
    if any(_HUNK.search(text) for text in texts):
        add("ctx.edit.diff")
    if "ctx.cap.elided" in rules and step["op"] in _DIFF_OPS:
        add("ctx.edit.capped")
    if any(_LINE_LIKE.search(text) for text in _strings(step)):
        add("ctx.text.lines")
    if step["op"] == "recall":
        add("ctx.recall.window")
    if not rules:
        add(_RULE_BY_OP[step["op"]])
    return rules


def guess_prefix_rules(finding: Finding, config: PrefixConfig) -> list[str]:
    """`guess_rules` for a prefix session: from the differing step's op and what differs."""
    step = finding.case["steps"][finding.step]
    op = step["op"]
    expected = finding.expected[finding.step]
    actual = finding.actual[finding.step] if finding.actual is not None else None
    rules: list[str] = []

    def add(rule: str) -> None:
        if rule not in rules:
            rules.append(rule)

    if op == "response":
        add(f"pfx.usage.{step['provider']}")
        if step["stream"]:
            add("pfx.usage.stream")
        if "null" in expected or (actual is not None and "null" in actual):
            add("pfx.usage.unreported")
    elif op == "call":
        texts = [expected] if actual is None else [expected, actual]
        for name, rule in _PFX_RULE_BY_REFUSAL:
            if any(_template_pattern(config.texts, name).search(text) for text in texts):
                add(rule)
    elif op in _PREFIX_REQUESTS and actual is not None:
        # A request's text: `system N`, `tools …`, `user`, then the message.
        want, have = expected.split("\n", 3), actual.split("\n", 3)
        if want[:1] != have[:1]:
            add("pfx.system.number")
        if want[1:2] != have[1:2]:
            add("pfx.tools.fixed")
        if want[3:] != have[3:]:
            add(_PFX_RULE_BY_OP[op])
            for name, rule in _PFX_RULE_BY_NOTE:
                pattern = _template_pattern(config.notes, name)
                if len(pattern.findall(expected)) != len(pattern.findall(actual)):
                    add(rule)
    if not rules:
        add(_PFX_RULE_BY_OP[op])
    return rules


def case_name(seed: int, case: Case) -> str:
    """`fuzz-SEED-HASH`: the hash of the session, so two findings never share a name."""
    canonical = json.dumps(case, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"fuzz-{seed}-{hashlib.sha256(canonical.encode('utf-8')).hexdigest()[:8]}"


def finding_document(
    finding: Finding, seed: int, impl: str, config: ContextConfig
) -> dict[str, Any]:
    """The finding as a case file of one case, valid against `cases.schema.json`."""
    step = finding.step
    op = finding.case["steps"][step]["op"]
    if finding.actual is None:
        what = f"fails the session. The rules are guessed from its last step ({op})"
    else:
        what = f"differs from the reference at step {step} ({op}). The rules are guessed from it"
    case: dict[str, Any] = {
        "name": case_name(seed, finding.case),
        "description": f"Found by ctxconf fuzz --seed {seed}: the implementation {what}: "
        "review them.",
        "rules": guess_rules(finding, config),
    }
    if "limits" in finding.case:
        case["limits"] = finding.case["limits"]
    case["steps"] = finding.case["steps"]
    case["expect"] = list(finding.expected)
    document = {
        "area": finding.area,
        "version": config.version,
        "description": f"A session found by `ctxconf fuzz --seed {seed}` on which {impl} departs "
        "from the reference; the expected texts are the reference's.",
        "cases": [case],
    }
    schema = json.loads((schemas_dir() / "cases.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator(schema).validate(document)  # a failure here is a bug in ctxconf
    return document


# Characters a JSON file may hold raw but that YAML (add-case reads the file as YAML), editors
# or terminals take for line breaks or hide: written as \u escapes.
_ESCAPED = re.compile(
    "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)


def document_text(document: Mapping[str, Any]) -> str:
    text = json.dumps(document, indent=2, ensure_ascii=False)
    return _ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def write_document(document: Mapping[str, Any], out: Path | None) -> Path:
    """Write the case file to `out` (a file, or a folder to put it in) or under ./reports/."""
    name = f"{document['cases'][0]['name']}.json"
    if out is None:
        DEFAULT_REPORTS.mkdir(parents=True, exist_ok=True)
        path = DEFAULT_REPORTS / name
    else:
        path = out / name if out.is_dir() else out
    write_text_atomic(path, document_text(document))
    return path


# -- what the command prints -------------------------------------------------------------------

_SHOWN_CHARS = 400
_SHOWN_LINES = 80


def _shorten(text: str, limit: int = _SHOWN_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def _clip(lines: list[str], limit: int = _SHOWN_LINES) -> list[str]:
    if len(lines) <= limit:
        return lines
    return [*lines[:limit], f"… ({len(lines) - limit} more lines)"]


def describe_finding(finding: Finding) -> list[str]:
    """The session, then each differing step as a diff of expected and actual, whitespace shown."""
    steps = finding.case["steps"]
    out = [f"the session ({len(steps)} steps):"]
    if "limits" in finding.case:
        out.append(f"  limits {json.dumps(finding.case['limits'])}")
    for index, step in enumerate(steps):
        out.append(f"  {index:>3}  {_shorten(json.dumps(step))}")
    if finding.actual is None:
        out.append(f"the implementation failed the session: {finding.failure}")
        if finding.stderr.strip():
            out.append("its stderr:")
            out.extend("  " + line for line in _clip(finding.stderr.rstrip().split("\n"), 20))
        out.append("the reference's texts:")
        for index, text in enumerate(finding.expected):
            out.append(f"  step {index} ({steps[index]['op']}):")
            out.extend("    " + visible(line) for line in _clip(text.split("\n")))
        return out
    for index in finding.differing:
        out.append(f"step {index} ({steps[index]['op']}) differs:")
        diff = visible_diff(finding.expected[index], finding.actual[index])
        out.extend("  " + line for line in _clip(diff))
    return out


# -- the command -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FuzzRequest:
    impl: str
    examples: int | None = None  # None: DEFAULT_EXAMPLES, or as many as --max-time allows
    seed: int | None = None  # None: a random seed, printed
    max_time: float | None = None
    out: Path | None = None
    timeout: float = DEFAULT_TIMEOUT
    accept_equivalent_diffs: bool = False
    area: str = AREA
    ops: tuple[str, ...] | None = None  # only these ops (None: every op of the area) ...
    skip_ops: tuple[str, ...] = ()  # ... but for these
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)

    def chosen_ops(self) -> frozenset[str] | None:
        """The ops the sessions are made of; None for every op of the area."""
        if self.ops is None and not self.skip_ops:
            return None
        every = self.ops if self.ops is not None else ops_of(self.area)
        return frozenset(every) - frozenset(self.skip_ops)


_HINT = "see `ctxconf fuzz --help`"


def _check(request: FuzzRequest) -> None:
    if request.area not in AREAS:
        raise UsageError(f"--area {request.area}: one of {', '.join(AREAS)}", hint=_HINT)
    known = ops_of(request.area)
    for option, names in (("--ops", request.ops or ()), ("--skip-ops", request.skip_ops)):
        unknown = [name for name in names if name not in known]
        if unknown:
            raise UsageError(
                f"{option} {','.join(names)}: no op {', '.join(unknown)} in the area "
                f"{request.area}; its ops are {', '.join(known)}",
                hint=_HINT,
            )
    if request.chosen_ops() == frozenset():
        raise UsageError(
            f"--ops and --skip-ops leave no op of the area {request.area} to generate; its "
            f"ops are {', '.join(known)}",
            hint=_HINT,
        )
    if request.examples is not None and request.examples < 1:
        raise UsageError(f"--examples {request.examples}: at least 1", hint=_HINT)
    if request.seed is not None and request.seed < 0:
        raise UsageError(f"--seed {request.seed}: a seed is a number from 0", hint=_HINT)
    max_time = request.max_time
    if max_time is not None and not (max_time > 0 and math.isfinite(max_time)):
        raise UsageError(f"--max-time {max_time:g}: a number of seconds above 0", hint=_HINT)
    if not (request.timeout > 0 and math.isfinite(request.timeout)):
        raise UsageError(f"--timeout {request.timeout:g}: a number of seconds above 0", hint=_HINT)
    if request.out is not None and not request.out.is_dir() and not request.out.parent.is_dir():
        raise UsageError(
            f"--out {request.out}: the folder {request.out.parent} does not exist",
            hint="give an existing folder, or a file in one",
        )


def execute(request: FuzzRequest, *, stdout: TextIO, stderr: TextIO) -> int:
    """Fuzz `request.impl`, print what was found, write it as a case file; the exit code."""
    try:
        _check(request)
        config = ContextConfig.load()
        implementation = Implementation(request.impl, timeout=request.timeout, area=request.area)
    except RunnerError as error:
        stderr.write(f"ctxconf fuzz: {error.describe()}\n")
        return EXIT_USAGE
    seed = secrets.randbelow(2**32) if request.seed is None else request.seed
    examples = request.examples
    if examples is None:
        examples = DEFAULT_EXAMPLES if request.max_time is None else UNLIMITED
    bounds = [] if examples == UNLIMITED else [f"up to {examples} sessions"]
    if request.max_time is not None:
        bounds.append(f"for at most {request.max_time:g} s")
    ops = request.chosen_ops()
    if ops is not None:
        bounds.append(f"ops {','.join(op for op in ops_of(request.area) if op in ops)}")
    stdout.write(
        f"ctxconf fuzz: seed {seed}; area {request.area}; {', '.join(bounds)}; "
        f"{request.impl} ({implementation.name}) against the reference\n"
    )
    stdout.flush()
    options = FuzzOptions(
        examples, seed, request.max_time, request.accept_equivalent_diffs, request.area, ops
    )
    try:
        outcome = fuzz(implementation, options, config, clock=request.clock)
    finally:
        implementation.close()
    if outcome.finding is None:
        why = " (time was up)" if outcome.timed_out else ""
        stdout.write(
            f"no disagreement in {outcome.examples} sessions{why}, "
            f"{outcome.elapsed:.1f} s; rerun with --seed {seed}\n"
        )
        return EXIT_OK
    finding = outcome.finding
    stdout.write(
        f"disagreement found after {outcome.examples} sessions, shrunk in "
        f"{outcome.shrink_runs} more runs ({outcome.elapsed:.1f} s"
        f"{'; time ran out while shrinking' if outcome.timed_out else ''})\n\n"
    )
    for line in describe_finding(finding):
        stdout.write(line + "\n")
    document = finding_document(finding, seed, request.impl, config)
    path = write_document(document, request.out)
    case = document["cases"][0]
    stdout.write(
        f"\nwrote {path}: case {case['name']}, rules guessed: {', '.join(case['rules'])}\n"
        f"review its rules and name, then add it to the suite (docs/fuzzing.md); "
        f"rerun with --seed {seed}\n"
    )
    return EXIT_FOUND
