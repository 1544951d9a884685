"""What `ctxconf proxy` does: check where it listens and where it forwards, start the proxy,
say where it listens (a port of 0 becomes the one the system gave), show each exchange as it
ends, and on Ctrl-C (or SIGTERM, SIGHUP) stop and print the summary.

It listens on the loopback alone unless told `--allow-remote`: the harness's keys pass through
it, and the record holds its prompts."""

from __future__ import annotations

import asyncio
import ipaddress
from dataclasses import replace
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from ctxconf.errors import CtxconfError
from ctxconf.exitcodes import EXIT_OK
from ctxconf.interruption import SIGNALS

from .serve import Options, Proxy
from .watcher import Watcher


class ProxyError(CtxconfError):
    code = "proxy-error"


def parse_listen(text: str) -> tuple[str, int]:
    """`[HOST:]PORT` (an IPv6 host in brackets) -> (host, port); HOST defaults to 127.0.0.1."""
    host, colon, port = text.rpartition(":")
    if not colon:
        host, port = "", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ProxyError(f"--listen {text!r} is not [HOST:]PORT with a port from 0 to 65535")
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_upstream(text: str) -> str:
    """The upstream's URL as the proxy forwards to it: http or https, a host, any path prefix,
    no query, no fragment, no name or password in it, no trailing slash."""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProxyError(
            f"--upstream {text!r} is not an http:// or https:// URL",
            hint="the provider's base URL, as https://api.anthropic.com",
        )
    if parts.query or parts.fragment or parts.username or parts.password:
        host = parts.netloc.rpartition("@")[2]
        safe = parts._replace(netloc=host, query="", fragment="").geturl()  # nothing of a secret
        raise ProxyError(
            f"--upstream {safe!r}…: give the base URL alone, without a query, a fragment or "
            "credentials",
            hint="the harness's own key passes through the proxy as it sends it",
        )
    return text.rstrip("/")


def options(
    upstream: str,
    listen: str,
    folder: Path,
    *,
    allow_remote: bool = False,
    hash_only: bool = False,
    body_limit: int | None = None,
) -> Options:
    """The proxy's options, each checked; ProxyError for one that cannot be."""
    host, port = parse_listen(listen)
    if not allow_remote and not is_loopback(host):
        raise ProxyError(
            f"--listen {listen!r} is not a loopback address: the harness's keys and prompts "
            "would be open to the network",
            hint="listen on 127.0.0.1 (the default), or add --allow-remote if you mean it",
        )
    if folder.exists() and not folder.is_dir():
        raise ProxyError(f"--record {folder}: not a folder")
    chosen = Options(check_upstream(upstream), folder, host, port, hash_only)
    return chosen if body_limit is None else replace(chosen, body_limit=body_limit)


async def _serve(chosen: Options, out: TextIO, watcher: Watcher | None) -> Proxy:
    proxy = Proxy(chosen, out, watcher)
    url = await proxy.start()
    print(f"ctxconf proxy: listening on {url}, forwarding to {chosen.upstream}", file=out)
    print(f"ctxconf proxy: recording to {proxy.path}", file=out, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in SIGNALS:
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        for signum in SIGNALS:
            loop.remove_signal_handler(signum)
        await proxy.stop()
    return proxy


def run_proxy(chosen: Options, out: TextIO, watcher: Watcher | None = None) -> int:
    """Serve until a signal stops it; then the summary, the calibration of the token estimate
    and what the watcher has to say."""
    try:
        proxy = asyncio.run(_serve(chosen, out, watcher))
    except OSError as e:
        raise ProxyError(
            f"cannot listen on {chosen.host}:{chosen.port} or write to {chosen.folder}: "
            f"{e.strerror or e}"
        ) from None
    except ValueError as e:  # a salt file the proxy did not write
        raise ProxyError(str(e)) from None
    print(f"ctxconf proxy: {proxy.live.summary()}; record: {proxy.path}", file=out, flush=True)
    calibration = proxy.live.calibration.words()
    if calibration:
        print(
            f"ctxconf proxy: the provider's input per token estimated: {calibration}",
            file=out,
            flush=True,
        )
    if watcher is not None:
        watcher.ended(out)
    return EXIT_OK


__all__ = ["ProxyError", "check_upstream", "is_loopback", "options", "parse_listen", "run_proxy"]
