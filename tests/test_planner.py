"""The memory planner: never overlaps live buffers, stays near the lower bound."""

from __future__ import annotations

import numpy as np

from utvm_build.planner import Buffer, _place, align_up, lower_bound


def random_buffers(rng: np.random.Generator, n: int, steps: int) -> list[Buffer]:
    out = []
    for i in range(n):
        first = int(rng.integers(0, steps))
        last = min(steps - 1, first + int(rng.integers(0, 4)))
        out.append(Buffer(("tensor", i), int(rng.integers(1, 5000)), first, last))
    return out


def test_placement_is_valid_and_tight() -> None:
    rng = np.random.default_rng(7)
    ratios = []
    for trial in range(200):
        steps = int(rng.integers(1, 30))
        bufs = random_buffers(rng, int(rng.integers(1, 40)), steps)
        total = _place(bufs, 16)
        for b in bufs:
            assert b.offset % 16 == 0 and b.offset + b.size <= total
        for i, a in enumerate(bufs):
            for b in bufs[i + 1:]:
                live_together = a.first <= b.last and b.first <= a.last
                apart = a.offset + a.size <= b.offset or b.offset + b.size <= a.offset
                assert not live_together or apart, (trial, a, b)
        bound = lower_bound(bufs, steps)
        assert total >= bound
        ratios.append(total / align_up(bound, 16))
    # Greedy first-fit over several orders: on random interval graphs it stays close to the bound.
    assert np.mean(ratios) < 1.15, np.mean(ratios)


def test_chain_reuses_memory() -> None:
    """A chain a -> b -> c -> d needs only two buffers at a time."""
    bufs = [Buffer(("tensor", i), 1000, i, i + 1) for i in range(4)]
    assert _place(bufs, 16) == 2 * align_up(1000, 16)
    assert lower_bound(bufs, 5) == 2000
