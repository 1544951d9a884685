"""Every relative link of the docs, the README and the spec text reaches a file, and a link to a
heading (`file.md#heading`) reaches a heading of that file, as GitHub names headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.paths import ROOT

PAGES = sorted([ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("spec/*.md")])

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
_FENCE = re.compile(r"^ *```.*?^ *```", re.MULTILINE | re.DOTALL)


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lowercased, punctuation but `-` and `_` dropped, spaces as
    `-`."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(heading) for heading in _HEADING.findall(text)}


def _links(page: Path) -> list[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return [
        link
        for link in _LINK.findall(text)
        if not re.match(r"^[a-z][a-z0-9+.-]*:", link)  # http:, mailto: and the like
    ]


def test_the_slug_is_githubs() -> None:
    assert _slug("`hist.turn.boundary` Written at the end of a turn") == (
        "histturnboundary-written-at-the-end-of-a-turn"
    )
    assert _slug("Step 1: read messages") == "step-1-read-messages"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_its_file_and_heading(page: Path) -> None:
    broken = []
    for link in _links(page):
        target, _, fragment = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.exists():
            broken.append(f"{link}: no file {path}")
        elif fragment and path.suffix == ".md" and fragment not in _anchors(path):
            broken.append(f"{link}: no heading #{fragment} in {path.name}")
    assert not broken, "\n".join(broken)
