"""A stand-in for the ``LambdaContext`` object Lambda passes to every invocation.

Powertools' ``inject_lambda_context`` reads ``function_name``, ``memory_limit_in_mb``,
``invoked_function_arn`` and ``aws_request_id``; handlers that budget their work read
``get_remaining_time_in_millis``. All of them behave as on Lambda, with the clock
starting when the invocation does.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

#: moto's account id; local ARNs use it so they line up with the ones moto returns.
LOCAL_ACCOUNT = "123456789012"


@dataclass
class LambdaContext:
    function_name: str
    timeout_seconds: int
    memory_limit_in_mb: int = 128
    region: str = "us-east-1"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    function_version: str = "$LATEST"
    identity: Any = None
    client_context: Any = None
    _started: float = field(default_factory=time.monotonic, repr=False)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{self.region}:{LOCAL_ACCOUNT}:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return f"local/[{self.function_version}]{self.aws_request_id.replace('-', '')}"

    def get_remaining_time_in_millis(self) -> int:
        elapsed = time.monotonic() - self._started
        return max(0, int((self.timeout_seconds - elapsed) * 1000))
