"""One writer of tests/test_output_writers.py's concurrency test: waits until a common start time,
then writes a generated directory (pickled files) and prints "ok" or the one-line error.

usage: python output_race_child.py OUT_DIR FILES.pickle START_TIME 0|1(incremental)
"""

from __future__ import annotations

import pickle
import sys
import time

from utvm_build.emit.output import write_output
from utvm_build.errors import UtvmError

with open(sys.argv[2], "rb") as f:
    files = pickle.load(f)
delay = float(sys.argv[3]) - time.time()
if delay > 0:
    time.sleep(delay)
try:
    write_output(sys.argv[1], files, incremental=sys.argv[4] == "1")
except UtvmError as e:
    print(f"utvm-build: error: {e}", file=sys.stderr)
    sys.exit(2)
print("ok")
