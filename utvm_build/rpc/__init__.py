"""Host-driven execution: a light client of TVM's RPC protocol (no TVM needed) and the build of the
C runtime's RPC server as a host program (docs/rpc.md). Imported lazily (PEP 562): the command line
loads NumPy only when it uses the client."""

__all__ = ["Function", "Module", "RPCConnectionError", "RPCError", "RPCTimeoutError", "Session", "Tensor",
           "TimeEvaluator", "build_host_server", "connect", "popen"]


def __getattr__(name: str):
    if name == "build_host_server":
        from .build import build_host_server

        return build_host_server
    if name in __all__:
        from . import client

        return getattr(client, name)
    raise AttributeError(name)
