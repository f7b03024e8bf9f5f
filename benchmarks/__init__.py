"""utvm-build benchmarks: flash, RAM, stack and instructions per inference on emulated Cortex-M.

Run everything with ``python -m benchmarks`` (see benchmarks/README.md). Not part of the
package and not part of the test suite (one smoke test runs the smallest model).
"""
