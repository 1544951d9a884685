"""Lists an area by a name no case file has ("Context", not "context"): nothing it could run."""

from _faux import reference_hello, serve


def hello() -> object:
    return {**reference_hello(), "areas": ["Context"]}


serve(on_hello=hello)
