"""Love Letter in words: card texts, one line per event, the table as text, and the rules in short
(for the help screen)."""

from __future__ import annotations

from collections.abc import Mapping

from engine.core import (
    Decide,
    Event,
    Face,
    Game,
    GameOver,
    IllegalMove,
    Ref,
    Seat,
    per_seat,
    seat_name,
)

from .state import (
    _BETWEEN_ROUNDS,
    _EFFECTS,
    _NEEDS_OTHER,
    BARON_RESULT,
    BARON_REVEAL,
    BARON_SHOW,
    CHANCELLOR,
    CHANCELLOR_DEAL,
    CHANCELLOR_HIDE,
    CHANCELLOR_SHOW,
    DISCLOSE,
    DRAW,
    FACEUP,
    FIRST_PLAYER,
    GUARD_ANSWER,
    GUARD_REVEAL,
    KING_SHOW,
    KNOCKOUT_REVEAL,
    NAMES,
    OPENING_DEAL,
    OVER,
    PLAY,
    PRIEST_SHOW,
    PRINCE_DEAL,
    PRINCE_REVEAL,
    REVEAL_PLAY,
    SHOWDOWN,
    SHUFFLE,
    State,
    _the,
)

RULES = (
    "Love Letter: each round, every player holds one card. On your turn you draw a second card and "
    "play one of the two face up; its effect happens at once.",
    "You are out of the round if a Guard names your card, you lose a Baron comparison, or you "
    "discard the Princess. The round ends when one player is left (they win it) or the pile is "
    "empty (the highest card wins; a tie goes to the highest total of discards).",
    "The round's winner gets a token of affection; the first to the token goal wins the game.",
    "Cards are dealt fairly by mental poker: nobody, not even the opener, sees a card they are not "
    "entitled to. Answers only your cards can give (a Guard's 'miss', a Baron result) are offered "
    "as the single honest choice; every claim is checked when the round's cards are disclosed.",
)
"""The rules in short, in our own words, for the help screen (the full rules are in the rules files)."""


def card_text(game: Game, face: Face) -> str:
    """``"Guard (1, x5): Choose another player ..."`` for this edition."""
    if face not in game.counts:
        raise ValueError(f"no card {face!r} in the {game.edition} deck")
    return f"{NAMES[face]} ({game.values[face]}, x{game.counts[face]}): {_EFFECTS[face]}"


def _card(game: Game, face: Face | None) -> str:
    return "?" if face is None else f"{NAMES[face]}({game.values[face]})"


def describe(game: Game, state: State, event: Event) -> str:
    """One line of English for ``event`` applied to ``state``, from public information only."""
    try:
        after = game.apply(state, event)
    except IllegalMove as exc:
        return f"rejected {getattr(event, 'kind', 'event')}: {exc}"
    line = _describe(game, state, event, after)
    if after.fault is not None:
        return f"{line} — {seat_name(after.fault.seat)} cheated ({after.fault.reason}): the game stops"
    if state.phase not in _BETWEEN_ROUNDS and after.phase in _BETWEEN_ROUNDS:
        line += " — " + _round_summary(game, after)
    if after.phase == OVER and state.phase != OVER:
        won = ", ".join(seat_name(s) for s in after.winners)
        line += f" — game over: {won} {'wins' if len(after.winners) == 1 else 'win'}"
    return line


def _round_summary(game: Game, after: State) -> str:
    if len(after.last_winners) == 1:
        text = f"{seat_name(after.last_winners[0])} wins round {after.round}"
    elif after.last_winners:
        text = f"{', '.join(map(seat_name, after.last_winners))} share round {after.round}"
    else:
        text = f"round {after.round} is a complete tie: no token"
    if after.last_spy is not None:
        text += f"; {seat_name(after.last_spy)} gets the Spy bonus"
    return text + f" (tokens: {per_seat(after.tokens)})"


def _describe(game: Game, s: State, event: Event, after: State) -> str:
    phase, play = s.phase, s.play
    who = seat_name(play.seat) if play is not None else ""
    target = seat_name(play.target) if play is not None and play.target is not None else ""
    revealed: Mapping[Ref, Face] = event.data.get("faces", {})
    if phase == FIRST_PLAYER:
        return f"{seat_name(event.data['value'])} is chosen at random to start"
    if phase == SHUFFLE:
        return (f"round {s.round + 1}: the {len(game._deck)} cards are shuffled and the top one is set "
                "aside face down")
    if phase == FACEUP:
        return "removed face up for this round: " + ", ".join(NAMES[revealed[r]] for r in s.pile[:3])
    if phase == OPENING_DEAL:
        return f"each seat is dealt one card, starting with {seat_name(after.starter or 0)}"
    if phase == DRAW:
        return f"{seat_name(s.turn or 0)} draws a card ({len(after.pile)} left in the pile)"
    if phase == PLAY:
        return _describe_play(game, event)
    if phase == REVEAL_PLAY and play is not None:
        shown = revealed[play.card]
        if shown != play.face:  # the claim is disproved: say what the card really is
            return f"{who}'s card is revealed: {_the(shown)}, not {_the(play.face)}"
        # the play's own line already named the card, so this one says only what it does; the
        # card shown is the one played (its owner's), never the target's
        shown_up = f"{who}'s {NAMES[play.face]} is shown face up, as claimed"
        if play.face in _NEEDS_OTHER and play.target is None:
            return f"{shown_up}; no effect: nobody can be targeted"
        if play.face == "handmaid":
            return f"{who} is protected until their next turn"
        if play.face == "king":
            return f"{who} and {target} swap hands"
        if play.face == "princess":
            return f"{who} is out of the round"
        if play.face == "chancellor" and not s.pile:
            return f"{shown_up}; no effect: the pile is empty"
        return shown_up
    if phase == GUARD_ANSWER and play is not None:
        hit = event.data["hit"]
        holds = "holds" if hit else "does not hold"
        return f"{target}: {'hit' if hit else 'miss'} — {holds} {_the(play.guess or '')}"
    if phase in (GUARD_REVEAL, BARON_REVEAL, KNOCKOUT_REVEAL) and play is not None:
        loser = {GUARD_REVEAL: play.target, BARON_REVEAL: play.loser, KNOCKOUT_REVEAL: play.seat}[phase]
        shown = ", ".join(_the(f) for f in revealed.values())
        if after.fault is not None:
            return f"{seat_name(loser or 0)}'s card is revealed: {shown}"
        if phase == KNOCKOUT_REVEAL:  # (after the Princess: the line before said they are out)
            return f"{seat_name(loser or 0)} discards {shown} too"
        return f"{seat_name(loser or 0)} discards {shown} and is out of the round"
    if phase == PRIEST_SHOW:
        return f"{who} looks at {target}'s hand in private"
    if phase == BARON_SHOW:
        return f"{who} and {target} compare hands in private"
    if phase == BARON_RESULT:
        loser = event.data["loser"]
        if loser is None:
            return f"{who} reports a tie: nothing happens"
        if play is not None and loser == play.seat:  # (not "seat 2 reports that seat 2 has …")
            return f"{who} reports having the lower card"
        return f"{who} reports that {seat_name(loser)} has the lower card"
    if phase == PRINCE_REVEAL:
        face = next(iter(revealed.values()))
        extra = " and is out of the round" if face == "princess" else ""
        return f"{target} discards {_the(face)}{extra}"
    if phase == PRINCE_DEAL:
        left = len(after.pile)
        source = "the set-aside card (the pile is empty)"
        if s.pile:
            source = f"a new card ({left} left in the pile)"
        return f"{target} draws {source}"
    if phase == KING_SHOW:
        return f"{who} and {target} each look at their new card"
    if phase == CHANCELLOR_DEAL:
        n = min(2, len(s.pile))
        return f"{who} draws {n} card{'s' if n > 1 else ''} for the Chancellor"
    if phase == CHANCELLOR_HIDE:
        return f"{who}'s hand is re-masked (shuffled in secret): nobody can follow its cards under the pile"
    if phase == CHANCELLOR_SHOW:
        return f"{who} looks at the re-masked hand"
    if phase == CHANCELLOR:
        n = len(event.data["bottom"])
        return f"{who} keeps one card and puts {n} under the pile"
    if phase == SHOWDOWN:
        # (" · " between the hands: "; " parts an entry's lines, and the console and plain mode
        # would show each hand as a line of its own)
        shown = " · ".join(f"{seat_name(seat)} {NAMES[revealed[s.hands[seat][0]]]}"
                          for seat in game.in_round(s))
        return f"the pile is empty — showdown: {shown}"
    if phase == DISCLOSE:
        aside = revealed.get(s.set_aside) if s.set_aside is not None else None
        count = len(revealed)
        cards = "hidden card is" if count == 1 else "hidden cards are"
        text = f"round {s.round}'s {count} {cards} disclosed for checking"
        return text + (f" (the set-aside card was {_the(aside)})" if aside else "")
    return f"{event.kind}"


def _describe_play(game: Game, event: Event) -> str:
    data = event.data
    seat, face, target, guess = event.seat or 0, data["face"], data.get("target"), data.get("guess")
    line = f"{seat_name(seat)} plays {_the(face)}"
    if target is not None:
        line += " on themselves" if target == seat else f" on {seat_name(target)}"
    elif face in _NEEDS_OTHER:
        line += " with no target"
    if guess is not None:
        line += f", guessing {_the(guess)}"
    return line


def _waiting_for(game: Game, s: State) -> str:
    request = game.pending(s)
    if isinstance(request, GameOver):
        if s.fault is not None:
            return f"game stopped: {seat_name(s.fault.seat)} cheated ({s.fault.reason})"
        return "game over: " + ", ".join(map(seat_name, s.winners)) + " won"
    if isinstance(request, Decide):
        what = {"play": "to play a card", "guard_answer": "to answer the Guard",
                "baron_result": "to report the Baron comparison",
                "chancellor": "to choose a card to keep"}[request.prompt]
        return f"{seat_name(request.seat)} {what}"
    return f"table: {type(request).__name__.lower()} ({s.phase.replace('_', ' ')})"


def render(game: Game, state: State, seat: Seat | None, own_faces: Mapping[Ref, Face]) -> str:
    """The table as ``seat`` sees it (``None``: the public view), as a few lines of text."""
    s = state
    lines = [f"Love Letter ({game.edition}, {game.seats} players) — round {s.round} — "
             f"{game.threshold} tokens to win"]
    for p in range(game.seats):
        marks = []
        if s.out[p]:
            marks.append("OUT")
        if s.protected[p]:
            marks.append("protected")
        if s.turn == p and s.phase not in _BETWEEN_ROUNDS:
            marks.append("turn")
        row = " ".join(_card(game, s.faces.get(r)) for r in s.discards[p]) or "-"
        me = ">" if p == seat else " "
        lines.append(f"{me} {seat_name(p):7} tokens {s.tokens[p]}  {','.join(marks):20} discards: {row}")
    if s.faceup:
        row = " ".join(_card(game, s.faces.get(r)) for r in s.faceup)
        lines.append(f"face up (out of this round): {row}")
    aside = "1 card" if s.set_aside is not None and s.set_aside not in s.faces else "none"
    lines.append(f"pile: {len(s.pile)} card{'' if len(s.pile) == 1 else 's'} · set aside: {aside}")
    if seat is not None:
        hand = " ".join(_card(game, own_faces.get(r)) for r in s.hands[seat]) or "-"
        lines.append(f"your hand: {hand}")
        known = [f"{seat_name(p)} holds {_card(game, own_faces[r])}"
                 for p in range(game.seats) if p != seat
                 for r in s.hands[p] if r in own_faces and r not in s.faces]
        if known:
            lines.append("you know: " + "; ".join(known))
    lines.append("now: " + _waiting_for(game, s))
    return "\n".join(lines)
