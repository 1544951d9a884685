"""ctxconf: the context-hygiene spec as data, its reference implementation, a conformance runner."""

__version__ = "0.1.0"


def _beside_a_checkout() -> list[str]:
    """The repository root when this is a checkout's ctxconf/ folder, not an installed package.

    In a checkout, reference/ and runner/ sit beside this folder; only an install maps them into
    the package (pyproject's package-dir). `python -m ctxconf` from the repository root puts the
    checkout's folder first on sys.path, ahead of any installed package, so the subpackages are
    then looked for beside it.
    """
    from pathlib import Path

    here = Path(__file__).resolve().parent
    if (here / "runner").is_dir():
        return []
    beside = all((here.parent / name / "__init__.py").is_file() for name in ("reference", "runner"))
    return [str(here.parent)] if beside else []


__path__.extend(_beside_a_checkout())
