"""ctxconf: the context-hygiene spec as data, a reference implementation, and a conformance runner."""

__version__ = "0.1.0"
