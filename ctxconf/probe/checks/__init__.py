"""The checks on the recorded requests, each tied to the rule anchor it sees on the wire."""

from .exact import CHECKS, CheckDef, CheckResult, judge, sent_requests

__all__ = ["CHECKS", "CheckDef", "CheckResult", "judge", "sent_requests"]
