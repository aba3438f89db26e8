"""Format-aware hearing (issue 17.2): the agent knows the *form* of the answer it asked for, so it takes the best
ASR hypothesis of that form. (It no longer primes its recogniser with a prompt: issue 28.3 measured no gain with the
natural voice, and a made-up format example turned a caller's "double 6" into "7 6".)

A person who asked for "your six-character confirmation code" and half-heard five characters re-parses what they
heard until it makes a six-character code; an agent does the same with the recogniser's n best transcripts. The
predicate is the policy's own parser (the form is domain-generic: a length, a pattern; never a scenario's value),
and the chosen hypothesis is what the agent acts on and what the record shows as heard: a misheard code is still a
wrong code, now of the right length, which the read-back and the caller's one-character corrections repair.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

FormCheck = Callable[[str], bool]


@runtime_checkable
class ExpectsForm(Protocol):
    """A dialogue policy that can say which form its pending question's answer has (None: any form)."""

    def expected_form(self) -> FormCheck | None: ...


def expected_form(policy: object) -> FormCheck | None:
    """The policy's form check for the answer it waits for; None when it has none (any policy may lack one)."""
    return policy.expected_form() if isinstance(policy, ExpectsForm) else None


def choose_hypothesis(alternatives: Sequence[str], fits: FormCheck) -> str:
    """The first (most likely) hypothesis of the expected form; the most likely one when none has that form."""
    return next((text for text in alternatives if fits(text)), alternatives[0])
