"""What each game's fight keeps open between two messages (``CombatRules.pending``, issue 24: the GM's
screen shows it), over seeded transcripts: the chat line that opens each item, then the one that closes it."""

from __future__ import annotations

from collections.abc import Callable

from bot.console import ROOM_ID
from bot.core.events import Event
from bot.core.records import Pending
from bot.core.table import Table
from tests.games.reino.test_fight import FIGHT as REINO_FIGHT
from tests.games.savage.test_table import CAST as SAVAGE_CAST
from tests.games.sombra.test_maneuvers import FIGHT as SOMBRA_GRAPPLE
from tests.games.sombra.test_table import CAST as SOMBRA_CAST
from tests.games.sombra.test_table import sombra_table
from tests.games.stormbringer.test_table import FIGHT_1, FIGHT_2, FIGHT_SEED
from tests.games.stormbringer.test_table import SETUP as STORMBRINGER_SETUP
from tests.transcript import GM, make_table, play

SAVAGE = SAVAGE_CAST + """
@gm:local: !combate
@gm:local: !turnos McAvoy, Kira
@gm:local: !daño Kira 12
"""
"""Kira (Toughness 5, 3 bennies) takes 12: one wound she may soak."""
STORMBRINGER = STORMBRINGER_SETUP + """
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !ataque Orco
"""
"""Seed 58 (``test_full_combat``): Moonglum's arrow hits Orco, who may parry it."""
STORMBRINGER_MASTER = (STORMBRINGER_SETUP.replace("ataque 85 parada 70", "ataque 90 parada 90") + FIGHT_1
                       + "\n".join(FIGHT_2.strip().splitlines()[:10]) + "\n")
"""Seed 58 with Elric a master (90% in attack and parry): Orco attacks him and his parry [49] works."""
REINO = "\n".join(REINO_FIGHT.strip().splitlines()[:16])
"""Seed 10 (``test_fight``): the GM's Jefe hits Ana; its damage waits for ``!daño``."""
SOMBRA_DYING = SOMBRA_CAST + """
@gm:local: !ficha McAvoy vit 2
@gm:local: !combate
@gm:local: !iniciativa McAvoy Bruno Hans
@gm:local: !daño McAvoy 11 abdomen
@gm:local: !ficha McAvoy umbral sí
"""
"""A grave wound, and the GM starts the death threshold (issue 31 item 18: no wound starts it by itself)."""
GRAPPLE_DICE = (2, 3, 4, 9, 8, 7, 1, 2, 3, 9, 8, 7, 2, 2, 3, 9, 9, 8)
"""``test_apresar_holds_the_rival…``: McAvoy holds Hans, who wins two struggles in a row."""
SOMBRA_HELD = SOMBRA_GRAPPLE + "@ana:local: !ataque Hans pelea apresar\n"


def pending(script: str, table: Table) -> list[Pending]:
    play(script, table)
    room = table.room(ROOM_ID)
    assert room.combat is not None
    ctx = table.context_for(Event(ROOM_ID, GM, "", ""), room)
    return ctx.game.combat.pending(ctx, room.combat)


def savage(seed: int) -> Callable[[], Table]:
    return lambda: make_table(system="savage", seed=seed)


def test_savage_offers_the_soak_of_a_wild_cards_wound_until_it_is_answered() -> None:
    """Issue 30: the first ``!siguiente`` is refused while the soak is open; the second closes it."""
    assert pending(SAVAGE, savage(10)()) == [Pending("soak", "Kira", "absorber", amount=1, closable=True)]
    assert pending(SAVAGE + "@gm:local: !siguiente\n", savage(10)()) == [
        Pending("soak", "Kira", "absorber", amount=1, closable=True)]
    assert pending(SAVAGE + "@gm:local: !siguiente\n@gm:local: !siguiente\n", savage(10)()) == []
    assert pending(SAVAGE + "@bob:local: !absorber no\n", savage(10)()) == []


def test_savage_a_full_soak_closes_it_and_a_failed_one_leaves_its_reroll() -> None:
    soaked = SAVAGE + "@bob:local: !absorber\n"
    assert pending(soaked, savage(10)()) == []  # seed 10: 1d8 [2], wild die [6!+5] absorbs the wound
    assert pending(soaked, savage(4)()) == [Pending("soak_reroll", "Kira", "absorber", amount=1)]  # [2] [1]
    spent = soaked + "@gm:local: !ficha Kira bennies 0\n"
    assert pending(spent, savage(4)()) == []


def test_an_extras_wound_offers_no_soak() -> None:
    extra = SAVAGE.replace("!daño Kira 12", "!ficha Kira comodin no\n@gm:local: !daño Kira 12")
    assert pending(extra, savage(10)()) == []


def stormbringer() -> Table:
    return make_table(system="stormbringer", seed=FIGHT_SEED)


def test_stormbringer_a_blow_waits_for_its_defence_then_for_its_damage() -> None:
    assert pending(STORMBRINGER, stormbringer()) == [Pending("defence", "Orco", "parada", target="Moonglum")]
    parried = STORMBRINGER + "@gm:local: !parada\n"  # Orco's parry [21] stops the arrow
    assert pending(parried, stormbringer()) == []
    failed = parried + "@bob:local: !siguiente\n@ana:local: !ataque Orco\n@gm:local: !parada\n"  # [95]: fails
    assert pending(failed, stormbringer()) == [Pending("damage", "Orco", "daño", target="Elric")]
    assert pending(failed + "@gm:local: !daño Orco\n", stormbringer()) == []


def test_stormbringer_a_masters_parry_leaves_a_riposte_until_the_next_turn() -> None:
    riposte = Pending("riposte", "Elric", "ataque", target="Orco")
    assert riposte in pending(STORMBRINGER_MASTER, stormbringer())
    assert riposte not in pending(STORMBRINGER_MASTER + "@gm:local: !siguiente\n", stormbringer())


def reino() -> Table:
    return make_table(system="reino", seed=10)


def test_reino_a_landed_blow_waits_for_its_damage() -> None:
    assert pending(REINO, reino()) == [Pending("damage", "Jefe", "daño", target="Ana", amount=1)]
    assert pending(REINO + "\n@gm:local: !daño\n", reino()) == []


def test_sombra_the_held_one_may_struggle_until_free() -> None:
    held = Pending("held", "Hans", "forcejeo", target="McAvoy")
    assert pending(SOMBRA_HELD, sombra_table(GRAPPLE_DICE)) == [held]
    turns = SOMBRA_HELD + "@ana:local: !siguiente\n@gm:local: !ataque McAvoy\n@gm:local: !forcejeo\n"
    assert pending(turns, sombra_table(GRAPPLE_DICE)) == [held]  # one win of the two
    assert pending(turns + "@gm:local: !forcejeo\n", sombra_table(GRAPPLE_DICE)) == []


def test_sombra_a_death_threshold_counts_until_healed() -> None:
    assert pending(SOMBRA_DYING, sombra_table()) == [Pending("threshold", "McAvoy", "curar", amount=2)]
    assert pending(SOMBRA_DYING + "@gm:local: !curar McAvoy\n", sombra_table()) == []


def test_the_generic_game_keeps_nothing_open() -> None:
    script = "@gm:local: !pj Ana\n@gm:local: !combate\n@gm:local: !iniciativa\n@gm:local: !daño Ana 3\n"
    assert pending(script, make_table(system="generic")) == []
