"""ctxconf: conformance tests and spec tooling for context hygiene in LLM agent harnesses.

The package is the command line (`cli`, `commands/`) and the tools over a spec folder
(`spectools/`, `fuzzing/`, `pytest_plugin`), on helpers grouped by job (`userfiles/`,
`specdata/`, `spectext/`, `terminal/`). Installed beside them: the spec itself (`ctxconf.spec`,
`ctxconf.schemas`), its reference implementation (`ctxconf.reference`), and the two ways to reach
an implementation: `ctxconf.runner` for one that speaks the protocol, `ctxconf.probe` for a real
harness that speaks none. docs/architecture.md is the map.
"""

__version__ = "0.1.0"


def _beside_a_checkout() -> list[str]:
    """The repository root when this is a checkout's ctxconf/ folder, not an installed package.

    In a checkout, reference/, runner/ and probe/ sit beside this folder; only an install maps
    them into the package (pyproject's package-dir). `python -m ctxconf` from the repository root
    puts the checkout's folder first on sys.path, ahead of any installed package, so the
    subpackages are then looked for beside it.
    """
    from pathlib import Path

    here = Path(__file__).resolve().parent
    if (here / "runner").is_dir():
        return []
    folders = ("reference", "runner", "probe")
    beside = all((here.parent / name / "__init__.py").is_file() for name in folders)
    return [str(here.parent)] if beside else []


__path__.extend(_beside_a_checkout())
