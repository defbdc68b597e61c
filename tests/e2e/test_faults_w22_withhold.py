"""A party that withholds its own entries from one other party only (``tests/e2e/w22_withhold.py``):
from some entry on, or only its ``final`` (the game's very last entries). Real peer processes on
loopback, every game.

Nothing proves a withholding (a lost message looks the same), so nobody may be named: the honest
parties pass the missing entries on when asked, the game finishes, every process exits 0, every log
is the same and audits clean, confirmed by every party. Nothing prints a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.peer_support import CI, Cluster, assert_one_log_audited_clean

pytestmark = [pytest.mark.xdist_group("peers"), pytest.mark.slow]

CASES = [
    ("loveletter", 3, ""),
    ("regicide", 3, ""),
    ("rebelprincess", 4, ""),
    ("loveletter", 4, "final"),
    ("rebelprincess", 3, "final"),
]
if CI:  # bounded: every game, entries and a final withheld
    CASES = [CASES[1], CASES[2], CASES[3]]


@pytest.mark.parametrize(("game", "seats", "kind"), CASES, ids=[f"{g}-{s}-{k or 'all'}" for g, s, k in CASES])
def test_entries_withheld_from_one_party_reach_it_through_the_others(
    tmp_path: Path, game: str, seats: int, kind: str
) -> None:
    with Cluster(tmp_path, game=game, seats=seats, quiet_bots=False, stall_after=20) as cluster:
        cluster.no_rematch = True
        cluster.env["W22_WITHHOLD_KIND"] = kind
        cluster.env["W22_WITHHOLD_UNTIL"] = "" if kind else "80"  # each costs a catch-up: a window
        cluster.host_lingers = True  # as a `fairdeck bot` or a person's console: not gone at once
        cluster.start(bots=seats - 2)
        liar = cluster.start_dishonest("w22_withhold")
        codes = cluster.wait_finished()
        assert codes == [0] * seats, "\n".join(p.tail() for p in cluster.peers)
        assert "withholding from seat" in liar.output(), liar.tail()
        assert_one_log_audited_clean(cluster.logs(), seats)
        for peer in cluster.peers:
            assert "Traceback" not in peer.errors(), peer.tail()
