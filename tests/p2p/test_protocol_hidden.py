"""Issue #17 through the fair protocol: the engines' re-masking shuffles (a hand re-masked before a
face-down pass, a gift, a set-aside half) are resolved and proved like any other shuffle, the fresh
refs reach their owners, and the audit, which needs the re-masked refs disclosed at the end of each
round, finds the honest game clean."""

from __future__ import annotations

from engine.core import Shuffle
from p2p.memtable import build_table
from p2p.party import Effect
from tests.p2p.protocol_support import SHUFFLE_ROUNDS, audit_of


def test_rebel_princess_re_masked_hands_through_the_fair_protocol_audit_clean() -> None:
    # Musical Chairs, Wedding Gift and After Party: every one of them re-masks hands
    options = {"rounds": 3, "round_cards": "kom", "princess_powers": False}
    table = build_table("rebelprincess", 3, seed=5, shuffle_rounds=SHUFFLE_ROUNDS, options=options)
    table.run()
    replica = table.parties[0].table
    assert replica.ended == "over", replica.expected()
    assert len({b"".join(log) for log in table.logs}) == 1
    game = replica.game
    state = game.initial_state()
    hides = 0
    for event in replica.history:
        if state.step == "hide":
            assert isinstance(game.pending(state), Shuffle)
            hides += 1
        state = game.apply(state, event)
    assert hides >= 3
    report = audit_of(table)
    assert report.exit_code == 0, report.text()


def test_each_private_look_is_told_with_the_entry_that_showed_it() -> None:
    # a party that folds several entries at once must still say which one showed it a card (its
    # node tells the player right after that entry's line): every face it knows privately is
    # credited to exactly one accepted entry
    table = build_table("loveletter", 4, seed=12, shuffle_rounds=SHUFFLE_ROUNDS)
    credited: dict[int, int] = {}
    handle = table._handle

    def spy(index: int, effects: list[Effect]) -> None:
        for effect in effects:
            if index == 0 and effect.kind == "accepted" and effect.entry is not None:
                for ref in effect.learned:
                    assert ref not in credited, (ref, credited[ref], effect.entry.seq)
                    credited[ref] = effect.entry.seq
        handle(index, effects)

    table._handle = spy  # type: ignore[method-assign]
    table.run()
    party = table.parties[0]
    assert party.table.ended == "over"
    assert set(credited) == set(party.private_faces)
    kinds = {party.table.entries[seq].kind for seq in credited.values()}
    assert kinds <= {"sealed", "tokens", "shuffle", "move"}, kinds
    assert "sealed" in kinds  # a card shown to this seat alone (a Priest's look, a draw)
