"""A seated party that floods the table with chat for the whole game (``tests/e2e/w22_chatter.py``;
it keeps its own send queues short, so that its own entries still leave). Real peer processes on
loopback.

Chat from a seated party is authenticated and allowed: nothing drops it at the door. The honest
parties must still play the game to its end (their entries are not starved by the noise), nobody is
closed out or named, every log is the same and audits clean, and no honest peer grows without bound
(a generous bound on its peak memory) or prints a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.peer_support import Cluster, assert_one_log_audited_clean, memory_peak_mib, wait_for

pytestmark = [pytest.mark.xdist_group("peers"), pytest.mark.slow]

MEMORY_BOUND_MIB = 600  # far above a peer's ordinary peak: only an unbounded queue gets there


@pytest.mark.parametrize(("game", "seats"), [("loveletter", 3), ("regicide", 2)])
def test_a_chat_flood_from_a_seated_party_neither_stops_the_game_nor_names_anyone(
    tmp_path: Path, game: str, seats: int
) -> None:
    with Cluster(tmp_path, game=game, seats=seats, quiet_bots=False, stall_after=20) as cluster:
        cluster.no_rematch = True
        cluster.start(bots=seats - 2)
        flooder = cluster.start_dishonest("w22_chatter")
        wait_for(lambda: "flooding the table" in flooder.output(), 60, "the flood to begin")
        peaks: dict[str, float] = {}
        honest = [p for p in cluster.peers if p is not flooder]

        def all_done() -> bool:
            for peer in honest:
                if peer.proc is not None and (peak := memory_peak_mib(peer.proc.pid)) is not None:
                    peaks[peer.name] = max(peaks.get(peer.name, 0.0), peak)
            return not any(peer.running for peer in cluster.peers)

        wait_for(all_done, 400, "every peer to finish", every=0.5)
        codes = cluster.wait_finished(10)
        assert codes == [0] * seats, "\n".join(p.tail() for p in cluster.peers)
        assert "sent " in flooder.output(), flooder.tail()
        assert_one_log_audited_clean(cluster.logs(), seats)
        for peer in cluster.peers:
            assert "Traceback" not in peer.errors(), peer.tail()
        assert all(peak < MEMORY_BOUND_MIB for peak in peaks.values()), peaks
