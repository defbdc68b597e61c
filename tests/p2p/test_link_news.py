"""What a node tells its player about the other parties' links (``_Watch.link_news``): a party
that is not there yet when we start — or come back — is not called "disconnected" while its link
comes up; one that goes away later is, and its return says how long it was gone."""

from __future__ import annotations

from p2p.node import FIRST_LOOK_GRACE, _Watch


def test_links_still_coming_up_at_the_first_looks_are_no_news() -> None:
    watch = _Watch()
    # a resumed node: nobody is connected at its first looks, and everyone is a moment later
    assert [watch.link_news(p, True, 100.0) for p in (1, 2)] == [None, None]
    assert watch.link_news(1, True, 100.0 + FIRST_LOOK_GRACE / 2) is None
    assert [watch.link_news(p, False, 101.5) for p in (1, 2)] == [None, None]
    # from then on, going away and coming back are news
    assert watch.link_news(2, True, 110.0) == "disconnected"
    assert watch.link_news(2, True, 111.0) is None  # said once
    assert watch.link_news(2, False, 117.0) == "back after 7 s"
    assert watch.link_news(1, False, 118.0) is None


def test_a_party_that_never_comes_up_is_called_disconnected_once_after_the_grace() -> None:
    watch = _Watch()
    assert watch.link_news(3, True, 0.0) is None
    assert watch.link_news(3, True, FIRST_LOOK_GRACE - 0.1) is None
    assert watch.link_news(3, True, FIRST_LOOK_GRACE) == "disconnected"
    assert watch.link_news(3, True, FIRST_LOOK_GRACE + 5) is None
    # its return counts from when it was first missed
    assert watch.link_news(3, False, 20.0) == "back after 20 s"
