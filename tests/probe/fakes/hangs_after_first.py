"""A fake harness that sends its first request, then hangs until the probe kills it. A resumed
session does not hang: one timeout is enough to show, and a second would double the wait."""

from __future__ import annotations

import sys
import time
from typing import Any

from common import Answer, Session, variant_main


class HangsAfterFirst(Session):
    def post(self, base_url: str, body: dict[str, Any]) -> Answer:
        answer = super().post(base_url, body)
        if not self.resumed:
            time.sleep(3600)
        return answer


if __name__ == "__main__":
    sys.exit(variant_main(HangsAfterFirst))
