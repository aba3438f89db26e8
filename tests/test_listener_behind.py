"""The listener ASR of the agent's speech runs behind the next conversation (issue 28.2): ``heard_behind`` yields each
result in order once it is heard, hearing result i while result i + 1 is made, and raises a hearing error."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from evalkit.cell.score import heard_behind

N = 3


def test_each_result_is_heard_while_the_next_is_made_and_yielded_in_order() -> None:
    made = [threading.Event() for _ in range(N)]
    heard: list[int] = []
    overlapped: list[bool] = []

    def produce() -> Iterator[int]:
        for i in range(N):
            made[i].set()
            yield i

    def listen(i: int) -> None:
        # result i is heard while i + 1 is made: in line (after the yield) this would wait for nothing to come
        overlapped.append(i == N - 1 or made[i + 1].wait(timeout=10.0))
        heard.append(i)

    out = []
    for i in heard_behind(produce(), listen):
        assert i in heard  # never yielded before it is heard
        out.append(i)
    assert out == list(range(N)) and heard == list(range(N)) and all(overlapped)


def test_a_hearing_error_is_raised_on_its_result() -> None:
    def listen(i: int) -> None:
        if i == 1:
            raise RuntimeError("the listener failed")

    results = heard_behind(iter(range(N)), listen)
    assert next(results) == 0
    with pytest.raises(RuntimeError, match="the listener failed"):
        next(results)
