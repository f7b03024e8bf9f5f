"""A hard time limit for a test (no pytest-timeout needed): SIGALRM interrupts whatever blocks and
fails the test. Use as an autouse fixture: ``bounded = time_bound.fixture(60)``."""

from __future__ import annotations

import signal

import pytest


class TestTookTooLong(Exception):
    pass


def fixture(seconds: int):
    @pytest.fixture(autouse=True)
    def _bounded():
        def expire(signum, frame):
            raise TestTookTooLong(f"the test took more than {seconds} s")

        old = signal.signal(signal.SIGALRM, expire)
        signal.alarm(seconds)
        try:
            yield
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)

    return _bounded
