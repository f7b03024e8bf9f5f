"""Host-driven execution: a light client of TVM's RPC protocol (no TVM needed) and the build of the
C runtime's RPC server as a host program (docs/rpc.md). Imported lazily (PEP 562): the command line
loads NumPy only when it uses the client."""

__all__ = ["Function", "Module", "RPCConnectionError", "RPCError", "RPCTimeoutError", "Session", "Tensor",
           "TimeEvaluator", "build_host_server", "build_qemu_server", "connect", "popen", "run_on_device"]


def __getattr__(name: str):
    if name in ("build_host_server", "build_qemu_server"):
        from . import build

        return getattr(build, name)
    if name == "run_on_device":
        from .run import run_on_device

        return run_on_device
    if name in __all__:
        from . import client

        return getattr(client, name)
    raise AttributeError(name)
