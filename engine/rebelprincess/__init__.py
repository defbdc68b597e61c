"""Rebel Princess (Bezier Games Deluxe edition), 3-6 players: the rules engine.

Read with ``/work/shared/rules/rebel-princess.md`` (the specification; sections cited as §n).

Public API: :class:`RebelPrincess` (``engine.core.Game``), :class:`State`, :class:`Play`, and the
helpers in :mod:`.cards`, :mod:`.princesses`, :mod:`.rounds`, :mod:`.tricks` (legal plays and trick
winners, pure functions on faces). Move shapes per prompt are listed in :mod:`.moves`.

The package has the shape of every game (docs/adding-a-game.md): ``game`` the rules, ``state`` the
steps and public state, ``options`` the options, ``text`` the words, ``present`` how the programs show
it, ``bots`` its bots; ``moves`` and ``audit`` are the rules' helpers (legal moves per prompt, claims
checked after disclosure). Importing the package registers the game.

Deck and refs
-------------
``deck()`` = the suit cards for the seat count (``"fairy-5"``, the Frog is ``"pet-8"``), then the 12
Princesses (``"princess-snow-white"``...), then the 26 Round cards (``"round-a"`` ... ``"round-z"``).
Each round the suit cards are reshuffled into fresh refs and dealt; Princesses are shuffled, two are
dealt to each seat, kept with a ``Commit`` and revealed; Round cards are shuffled once (when not
chosen explicitly) and one is revealed at the start of each round.

Options (defaults first)
------------------------
``rounds`` 5 | 3; ``round_cards`` None (random) | letters such as ``"fkqxz"``, optionally one more
letter for the tie-break round | ``"first-game"`` (a-e, the Deluxe first-game set);
``princess_powers`` True | False;
``first_leader`` None (a joint ``Random``) | seat; ``edition`` "deluxe" | "zp" (preset for the four
edition constants below; the cards stay the Deluxe set); ``round_leader`` "lowest" | "last_winner";
``poisoned_apple_tie`` "earlier" | "later"; ``blind_mans_bluff`` "pass_remaining" | "set_aside";
``rebel_of_the_ball`` True | False; ``zero_rounds`` "zero_or_less" | "exactly_zero";
``tiebreak_round`` True | False; ``final_round_cards`` "" | letters of hourglass cards;
``mulan_frog`` "both" | "out" | "in" | "none".

Rule decisions where the rules file is uncertain
-------------------------------------------------
Recommendations of §12 taken as written (alternatives as options where they are edition constants):

1. Card effects and passes per S13 (§7.2, §8.1); Midnight Makeover 3R, Bathroom Break 2R; "left" is
   the next seat clockwise (seat + 1), "right" the previous one.
2. Hourglass (final-round) cards: deliberately none is flagged by default (``final_round_cards`` =
   ""). The seed recommends an hourglass card for the last round and uses one for its tie-break
   round, but no source this project could read names a single Deluxe hourglass card (rules §8.3,
   §12.2: their existence only; the card images were not available); a guessed flag would put a
   possibly wrong card last in every random game and pick the tie-break round's card wrongly. So
   the last-round and extra-round rules apply when a table names its hourglass cards (the letters
   printed with a black hourglass) with ``final_round_cards``: random setup then puts one flagged
   card last (and one in the tie-break round if there are two), and the tie-break round of an
   explicit ``round_cards`` takes a flagged card first. Without flags the tie-break round uses the
   next unused Round card.
3. Round leader (rounds 2+): lowest total, ties: first tied seat clockwise *after* the previous
   round's first leader (S13's wording); option ``last_winner``. Round 1: a joint random seat.
4. Poisoned Apple tie: earlier card (option ``later``).
5. Mulan: the Frog may be neither swapped out nor in (option).
6. Magic Beans: followers play the highest or lowest card of the led suit; leaders and void players
   the highest or lowest card of any one suit.
7. Rebel of the Ball: every Prince of the deck in use plus the Frog in the whole captured pile (gift
   piles and Late for a Very Important Date cards included) scores exactly -10; others unchanged.
8. Sleeping Beauty: contributions are face up; she keeps one and gives each other player one (she may
   hand a card back to its giver); only while every player holds an available card.
9. Ice Princess: any player holding an available card, herself included, who has no frozen card;
   with one card that card is frozen. The frozen card is out of reach of hand-affecting powers and
   is the owner's next play whatever the rules say; a frozen Prince makes Princes sneak in at once.
10. Before-trick powers: the seats with unspent before-trick powers are asked in order of most
    proposals, ties clockwise from the leader; Little Mermaid, Rapunzel and a freeze of the leader
    dictate the lead, so only one of them per trick (Pocahontas may not hand the lead to a frozen
    player after Mermaid/Rapunzel, the Ice Princess may not freeze the leader after them). Besides
    "not now" a seat may answer "not this round" (``{"use": false, "round": true}``): it is not asked
    again until the next round. At a real table nobody is asked before every trick, so a player who
    keeps a power for later is spared a question per trick; the answer is public, like every answer.
11. Sneaking in: only a void Prince play or a frozen Prince (never an all-Prince lead, Rapunzel,
    Mermaid, Haggle or Mulan).
12. Blind Man's Bluff: the remaining hand passes right once half the dealt cards are played (option
    ``set_aside``: the half set aside at the start passes right when the first half is done).
13. Pocahontas may pick any seat, herself and the current leader included (rules §12.15: "any
    player"); naming the current leader keeps the lead where it is and spends her power.
14. Three-round games draw three Round cards like five-round ones.
15. "Sum Enchanted Evening" is not in the set; S8's "highest card" power is the Pea Princess.

Decisions not covered by §12:

16. Zero rounds for the tie-break: the project seed says "zero or fewer" and the seeds outrank the
    rules file where they disagree, so that is the default (option ``exactly_zero`` = the rules
    file's literal reading). If still tied, the seed's extra round is played once with the next
    Round card (a flagged final-round card if any; ``round_cards`` may name it as one extra letter,
    else the first unused letter); only the tied players compete in it, and a tie after it is
    shared. Option ``tiebreak_round`` False shares at once (the rules file's §6.2).
17. Thumbelina's power lifts every play restriction (follow-suit, Magic Beans, Odds and Evens, Pea);
    in two-card tricks a per-card power used on the first card lasts for the second (ZP FAQ). It is
    a non-leader's power ("when she plays a card but is not the leader"): the leader of a two-card
    trick cannot use it on her second card either.
    Snow White may zero a frozen card of hers. Her zero changes only the value the card is compared
    with: the printed number still decides Odds and Evens parity, Three Times a Lady's -3 (FAQ) and
    Upside Down's flip (the card speaks of "every 6 played", a printed 6).
18. Prince Always Rings Twice: the led suit is fixed by the first card; in the second lap the leader
    follows it like everyone else. Reversed (Cinderella/...): lowest sum wins, a Snow White zero
    counting 13.
19. Sisterhood: distances use the counted value (Snow White's 0 included); ties go to the stronger
    card under the current order (higher normally, lower when reversed), then the earlier card.
20. Pass the Bouquet: a void card of a suit *new to the trick* (not played in it yet) moves the suit
    to follow to its suit, and the highest card of the last such suit wins. A void card of a suit
    already played in the trick (the led suit included) changes nothing: the card speaks of a new
    suit, and the other reading lets a void player hand the trick back to an old suit (F1, F6, P9
    void, F10 void: the Pets stay, Pet 9 wins).
21. Wedding Gift: gifts are placed before the before-trick powers and only while every hand holds
    two or more cards (Alice can make hands odd). Alice shuffles only the played cards; the gift
    pile still goes to her captured pile, and the trick counts as won (Arranged Marriage).
22. Alice may act on any trick, even the last: the dealt-back cards are simply played in one more
    trick. Haggle comes after Alice (if she keeps the trick). Haggle and Mulan show their new card
    with a Reveal; Mulan is offered her power after every trick she played in while it is unspent
    and she holds a card (whether she holds one of the suit is private).
23. Crystal Clear: each player must name a suit they hold (at least one card laid out); the laid-out
    cards stay public while in hand (``State.laid``). They are no longer random hand cards (ZP FAQ,
    §8.1 h): Scheherazade's and the Ice Princess's random draws take only from the face-down part
    of the hand, and a player with no face-down card cannot be their target. They stay in the hand
    otherwise (played normally, given to Sleeping Beauty, swapped by Scheherazade or Mulan).
24. Void is judged from the playable hand (set-aside and frozen cards excluded). Off-suit plays
    claim void implicitly; a frozen or Thumbelina off-suit play states it (``void``), and ``check``
    verifies it; a frozen card of the suit to follow is never void (a void card is an off-suit
    card), whatever the rest of the hand holds. A Prince lead before Princes sneak in is a claim that
    the hand holds only Princes.
25. After Party / Late to the Ball: the set-aside cards are picked up when the playable hands are
    empty. Late for a Very Important Date: the round stops when hands are down to three cards.
26. Musical Chairs passes after every trick that leaves cards in hand; before-trick powers act after
    it (ZP FAQ: exchange first).
27. Sleeping Beauty's contributions are chosen together (``Commit``) and then revealed; the Ice
    Princess's two cards are drawn with two joint ``Random`` picks (none when only one card is
    available) and shown to her; Scheherazade's card is one ``Random`` pick shown to her.
28. Round 1's first leader is a joint random seat (the seed's "left of the dealer", with no dealer);
    option ``first_leader`` fixes it.
29. Hidden information as at a real table (issue #17; the knowledge model, ``engine.core.Knowledge``):
    a hand is a face-down group its owner may rearrange, so when cards leave it face down without
    the rest (an opening or Musical Chairs pass, a Wedding gift, a half or a card set aside,
    Scheherazade's swap) or are drawn from it at random (Scheherazade, the Ice Princess), nobody else
    can follow them, nor the cards left behind. Before such a step, every hand concerned that another
    seat may partly know (a card passed to it, a card shown or laid out, a card Mulan, Haggle or
    Sleeping Beauty put back into it face up) is re-masked: ``Shuffle`` of exactly the refs of its
    face-down part, then ``Show`` of the fresh refs to its owner (steps ``hide`` and ``hide_show``).
    Frozen and laid-out cards stay face up and keep their refs. Cards that move as a whole (Blind
    Man's Bluff hands, set-aside halves picked up, the gift pile, a won trick) can be followed, as at
    the table. The re-masked refs are disclosed at the end of the round with the other hidden cards,
    so the audit can judge the claims made about them before the re-mask.
"""

from engine.games import register

from .bots import make_bot
from .game import RebelPrincess
from .options import DEFAULTS, EDITIONS
from .present import RebelPrincessPresentation
from .state import State
from .tricks import Play, PlayContext

GAME = RebelPrincess

register(RebelPrincess.name, RebelPrincess, bots=make_bot, presentation=RebelPrincessPresentation)

__all__ = ["DEFAULTS", "EDITIONS", "GAME", "Play", "PlayContext", "RebelPrincess", "State", "make_bot"]
