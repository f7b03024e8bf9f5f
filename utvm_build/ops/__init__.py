"""Operator handlers. Importing this package registers every handler module in it."""

import importlib
import pkgutil

from .base import OpHandler, handler_for, register, supported_operators

for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _mod != "base":
        importlib.import_module(f"{__name__}.{_mod}")

__all__ = ["OpHandler", "handler_for", "register", "supported_operators"]
