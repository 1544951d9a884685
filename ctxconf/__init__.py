"""ctxconf: the context-hygiene spec as data, its reference implementation, a conformance runner."""

__version__ = "0.1.0"
