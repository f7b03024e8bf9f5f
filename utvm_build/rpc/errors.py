"""The RPC client's errors, below every module that raises them (client, framing, serial link)."""

from __future__ import annotations

from ..errors import UtvmError


class RPCError(UtvmError):
    """The device reported an error; ``str(e)`` is the device's message."""


class RPCTimeoutError(RPCError):
    """The device did not answer in time."""


class RPCConnectionError(RPCError):
    """The device or the transport went away (or an earlier timeout closed the session)."""
