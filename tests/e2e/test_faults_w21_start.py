"""An opener whose ``start`` lists an endpoint nobody can connect to, against a real joining bot.

The genesis itself is honest (the policy has nothing to say against it); only an endpoint in the
start message is not ``tcp://HOST:PORT``. Before, the joiner wrote the genesis to a new log and
roster, failed to connect to that party half-way through seating itself, dropped the start as a bad
message and then sat there, seated in a game it never played, neither playing nor leaving. Now
the endpoints are checked before anything is written: the joiner refuses the table with one line,
tells the opener (``declined``), writes nothing and exits 2, as it does for any other bad start.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.e2e.test_hostile_opener import ROUNDS, HostileOpener, joiner_peer, until

pytestmark = [pytest.mark.xdist_group("peers")]


@pytest.mark.parametrize("endpoint", ["garbage", "tcp://127.0.0.1:70000"])
def test_a_start_with_an_endpoint_nobody_can_reach_is_refused_and_nothing_is_written(
    tmp_path: Path, endpoint: str
) -> None:
    opener = HostileOpener(tmp_path / "opener", hold=True)

    async def main() -> int:
        port = await opener.open()
        joiner = joiner_peer(tmp_path, f"127.0.0.1:{port}", "bot", f"cc:{ROUNDS}")
        try:
            joiner.start()
            await until(lambda: opener.joined >= 2, 60, "the joiner's seat")
            start = opener.start_message()
            start["endpoints"][0] = endpoint
            await opener.send_start(start)
            code = await asyncio.to_thread(joiner.wait, 60)
            await until(opener.declined, 10, "the joiner's declined message")
            return code
        finally:
            joiner.kill()
            await opener.node.close()

    code = asyncio.run(main())
    err = (tmp_path / "joiner.err").read_text()
    lines = [line for line in err.splitlines() if line and not line.startswith("--- run")]
    assert code == 2, err
    assert len(lines) == 1, err
    assert lines[0].startswith("fairdeck bot: refused the table: the start lists an endpoint that"), err
    assert endpoint in lines[0], err
    assert not opener.countersigned()
    games = tmp_path / "joiner" / "games"
    assert not (games.exists() and list(games.iterdir())), list(games.iterdir())
