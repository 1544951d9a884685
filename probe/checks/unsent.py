"""What may be behind a turn that sent the mock nothing it could answer: no request came at all
(is the harness using the mock's base URL?), or requests came on a path the mock does not serve;
each said with where the profile gives the harness that URL (the variables that carry it, with
the values they had), so the one line of the cause points at the fix.
"""

from __future__ import annotations

from ..events import substitute
from ..harness import ProbeRun, ProcessRun, SessionRun
from ..server import route
from .model import _count


def mock_url_hint(run: ProbeRun, session: SessionRun, process: ProcessRun) -> str:
    """Why a process may have sent the mock nothing it could answer: no request came at all
    (the harness is not using the mock's base URL?), or came on a path the mock does not
    serve; with where the profile gives the harness that URL."""
    came = [e for e in session.entries if int(e.get("n", 0)) <= process.last_request]
    own = [e for e in came if int(e.get("n", 0)) > process.first_request]
    unserved = [
        f"{e.get('method')} {e.get('path')}"
        for e in own
        if route(str(e.get("method")), str(e.get("path"))) == ("", None)
    ]
    if unserved:
        paths = ", ".join(dict.fromkeys(unserved))
        return (
            f"; the mock got {_count(len(unserved), 'request')} on a path it does not serve"
            f" for {run.profile.api} ({paths}): is the base URL's path right? "
            + _url_carriers(run, session)
        )
    if came:
        return ""
    return "; is the harness using the mock's base URL? " + _url_carriers(run, session)


def _url_carriers(run: ProbeRun, session: SessionRun) -> str:
    """Where the profile gives the harness the mock's URL: the variables it sets, else the
    files it writes, else the command."""
    values = {"base_url": session.base_url, "port": session.base_url.rsplit(":", 1)[-1]}

    def carries(text: str) -> bool:
        return "{base_url}" in text or "{port}" in text

    profile = run.profile
    names = [f"{k}={substitute(v, values)}" for k, v in profile.env.items() if carries(v)]
    if names:
        return "the profile set " + ", ".join(names)
    files = [name for name, text in profile.files.items() if carries(text)]
    if files:
        return "the profile wrote it into " + ", ".join(files)
    if any(carries(a) for a in (*profile.drive.first, *profile.drive.resume)):
        return "the profile passes it in the harness's command"
    return "the profile gives it ({base_url}) to the harness in no variable, file or command"


__all__ = ["mock_url_hint"]
