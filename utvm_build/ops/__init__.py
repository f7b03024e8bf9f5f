"""Operator handlers. Importing this package registers every handler."""

from . import fully_connected  # noqa: F401
from .base import OpHandler, handler_for, register, supported_operators

__all__ = ["OpHandler", "handler_for", "register", "supported_operators"]
