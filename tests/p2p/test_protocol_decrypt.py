"""A party opens its cards at exactly the moments, and in exactly the order, that a pass over every
ref would: ``Party._decrypt_what_we_can`` only looks at refs with new tokens, and every call is
compared here with the exhaustive pass from the same starting point, over whole in-memory games
(several players, solo, a witness, sealed tokens, trusted mode) and a restore from a log."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from p2p.memtable import build_table, seeded_identity
from p2p.party import Party
from tests.p2p.protocol_support import SHUFFLE_ROUNDS


def exhaustive_pass(party: Party) -> None:
    """The pass over every ref that a party made after each entry before only new tokens were looked at."""
    table = party.table
    parties = range(len(table.parties))
    for ref, public in table.tokens.items():
        party._try_decrypt(ref, public, parties)
    for ref in list(party._sealed_to_me):
        party._try_decrypt(ref, table.tokens.get(ref, {}), parties)
    if len(parties) == 1:
        for ref, to in table.private_refs.items():
            if to == party.me:
                party._try_decrypt(ref, {}, parties)


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every call of ``_decrypt_what_we_can`` is checked against :func:`exhaustive_pass` run from the
    same faces; yields a one-item list counting the cards the calls opened."""
    opened = [0]
    incremental: Callable[[Party], None] = Party._decrypt_what_we_can

    def checked(self: Party) -> None:
        start, problems = dict(self.private_faces), list(self.problems)
        incremental(self)
        got, got_problems = self.private_faces, self.problems
        self.private_faces, self.problems = dict(start), list(problems)
        exhaustive_pass(self)
        assert list(got.items()) == list(self.private_faces.items()), (self.me, self.table.next_seq)
        assert got_problems == self.problems
        opened[0] += len(got) - len(start)
        self.private_faces, self.problems = got, got_problems

    monkeypatch.setattr(Party, "_decrypt_what_we_can", checked)
    yield opened


@pytest.mark.parametrize(
    ("game", "seats", "witnesses", "mode"),
    [
        ("loveletter", 4, 0, "fair"),  # the Priest's look: tokens sealed to one party
        ("loveletter", 2, 1, "fair"),
        ("regicide", 1, 0, "fair"),  # alone: its own token opens its cards
        ("regicide", 1, 1, "fair"),
        ("rebelprincess", 3, 0, "fair"),
        ("loveletter", 3, 0, "trusted"),
    ],
)
def test_cards_open_when_the_exhaustive_pass_opens_them(
    compared: list[int], game: str, seats: int, witnesses: int, mode: str
) -> None:
    table = build_table(
        game,
        seats,
        seed=3,
        witnesses=witnesses,
        mode=mode,
        shuffle_rounds=SHUFFLE_ROUNDS,
        options={"rounds": 3} if game == "rebelprincess" else None,
    )
    table.run()
    assert table.parties[0].table.ended == "over"
    assert all(p.private_faces for p in table.parties[:seats])
    if mode == "fair":
        assert compared[0] > 0
    # a restart: the party folds its own log again and ends up knowing the same, in the same order
    for index, party in enumerate(table.parties):
        again = Party(seeded_identity(f"3-{index}"), table.logs[index][0])
        again.restore(table.logs[index][1:])
        assert list(again.private_faces.items()) == list(party.private_faces.items())


def test_a_sealed_look_is_read_at_once(compared: list[int]) -> None:
    """The Priest's look (a Show: tokens sealed to the looker) is known right after the entry that
    completes it, as the pass over every ref knew it (checked call by call by ``compared``)."""
    seen = 0
    for seed in range(4):
        table = build_table("loveletter", 3, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS)
        table.run()
        seen += sum(bool(p._sealed_to_me) for p in table.parties)
    assert seen > 0
