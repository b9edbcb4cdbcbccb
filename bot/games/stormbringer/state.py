"""Stormbringer combat state kept in ``combat.data`` (JSON values only; the sheet is read in ``sheet.py``).

Layout of ``combat.data``:
- ``first``: the side that goes first in round 1 ("players" or "gm"); later rounds alternate.
- ``phases``: the current round's ``RoundPhases``, and ``order`` the turn order worked out from
  them (both dropped when the GM sets the turns by hand with ``!turnos``).
- ``stage``: "intent" while the declarations of intent go round (``combat.order`` is then the
  declarers, lowest DEX first), "actions" once the attacks resolve.
- ``changing``: name keys of those who declared a change of weapon this round (-5 DEX).
- ``counters``: name key -> ``RoundCounter`` of this round (emptied at each new round).
- ``blows``: the attacks that hit, in order, each awaiting its defence (this round only) and then its
  damage (``!daño`` takes it off; a later roll never loses it).
- ``surprise``: name key -> ``SurpriseState`` plus ``from``, the combat round it started.
- ``wounds``: name key -> condition codes ("major", "stunned") for the rest of the combat.
- ``stuns``: name key -> the combat round a stun began (the GM lifts it: ``!ficha NOMBRE aturdido no``).
- ``tie_rank``: name keys in the order the GM put those who tied on DES (``!orden``), for the rest of the combat.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, TypedDict

from bot.core.api import (
    Character,
    Combat,
    Context,
    can_act,
    name_key,
    place_late,
)
from bot.games.stormbringer.sheet import phase_kind, sheet_int
from systems.stormbringer.combat import (
    NORMAL,
    ActionLimits,
    Combatant,
    RoundCounter,
    RoundPhases,
    SurpriseState,
    round_phases,
    tied,
)


class Riposte(TypedDict):
    """A master's riposte earned by a parry: ``by`` whom, ``against`` the attacker just parried."""

    by: str
    against: str


@dataclass
class _Part:
    """A view over the combat's own dict: what it reads and writes is the stored JSON as it always was;
    the per-name tables (counters, surprise, wounds) are added where they always were."""

    combat: Combat

    @property
    def _raw(self) -> dict[str, Any]:
        return self.combat.data

    @property
    def _kept(self) -> dict[str, Any]:
        """The dict with its per-name tables added when missing."""
        for key in ("counters", "surprise", "wounds", "stuns"):
            self.combat.data.setdefault(key, {})
        return self.combat.data


class RoundPlan(_Part):
    """Who goes first, the phases and turn order worked out from the sheets, the declarations' stage."""

    @property
    def first(self) -> str:
        """The side that goes first in round 1 ("players" or "gm")."""
        return str(self._kept.get("first", "players"))

    @first.setter
    def first(self, side: str) -> None:
        self._kept["first"] = side

    def worked_out(self, phases: RoundPhases, order: list[str]) -> None:
        """The round's phases and the turn order worked out from them."""
        self._kept.update(phases=phases.to_dict(), order=list(order))

    def intent(self, order: list[str]) -> None:
        """The declarations of intent start, in ``order``, which the round's message names."""
        self._kept.update(order=list(order), stage="intent", named=[name_key(n) for n in order])

    def actions(self) -> None:
        """The attacks resolve."""
        self._kept["stage"] = "actions"

    def drop_worked_out(self) -> None:
        """The GM set the turns by hand: no phases, worked-out order or stage."""
        for key in ("phases", "order", "stage", "named"):
            self._raw.pop(key, None)

    @property
    def phases(self) -> dict[str, Any] | None:
        """The phases last worked out, as stored (None when there are none)."""
        phases = self._raw.get("phases")
        return phases if isinstance(phases, dict) else None

    @property
    def stage(self) -> str | None:
        return self._raw.get("stage")

    def named(self, name: str) -> bool:
        """Whether the round's message named ``name`` among the declarers (not one who joined later)."""
        return name_key(name) in self._raw.get("named", [])

    @property
    def order(self) -> list[str] | None:
        """The turn order last worked out from the sheets (None when there is none)."""
        order = self._raw.get("order")
        return order if isinstance(order, list) else None


class Exchanges(_Part):
    """The blows that landed, whether the latest attack missed, and a master's riposte earned by a parry."""

    def blows(self) -> list[dict[str, Any]]:
        """The landed attacks awaiting defence or damage, kept (a single ``blow`` of an older version is
        taken in)."""
        table: list[dict[str, Any]] = self._raw.setdefault("blows", [])
        old = self._raw.pop("blow", None)
        if isinstance(old, dict):
            table.append({"round": self.combat.round, **old})
        return table

    def blows_seen(self) -> list[dict[str, Any]]:
        """``blows`` only read: nothing is added or taken in (a look at the fight changes no state)."""
        old = self._raw.get("blow")
        return [*self._raw.get("blows", []), *([{"round": self.combat.round, **old}] if isinstance(old, dict) else [])]

    def keep_blows(self, table: list[dict[str, Any]]) -> None:
        self._raw["blows"] = table

    @property
    def missed(self) -> bool:
        """The latest attack missed."""
        return bool(self._raw.get("missed"))

    def miss(self, missed: bool) -> None:
        if missed:
            self._raw["missed"] = True
        else:
            self._raw.pop("missed", None)

    @property
    def riposte(self) -> Riposte | None:
        return self._raw.get("riposte")

    @riposte.setter
    def riposte(self, riposte: Riposte | None) -> None:
        if riposte is None:
            self._raw.pop("riposte", None)
        else:
            self._raw["riposte"] = riposte


class Marks(_Part):
    """The name keys marked for a while: a change of weapon this round, caught unaware, disarmed."""

    def _add_once(self, field: str, key: str) -> None:
        keys = self._kept.setdefault(field, [])
        if key not in keys:
            keys.append(key)

    @property
    def changing(self) -> list[str]:
        """Who declared a change of weapon this round."""
        return self._raw.get("changing", [])

    def change_weapon(self, key: str) -> None:
        self._add_once("changing", key)

    @property
    def unaware(self) -> list[str]:
        """Who an ambush caught unaware."""
        return self._raw.get("unaware", [])

    def catch_unaware(self, key: str) -> None:
        self._add_once("unaware", key)

    @property
    def disarmed(self) -> list[str]:
        """The disarmed (``!desarmar``), until they draw a weapon."""
        return self._raw.get("disarmed", [])

    def disarm(self, key: str) -> None:
        self._add_once("disarmed", key)


class StormbringerState(_Part):
    """Stormbringer's keys in ``combat.data`` (the layout is in this module's docstring), typed, by
    concern: the round's plan, the exchanges of blows, the marks and the per-name tables."""

    @classmethod
    def of(cls, combat: Combat) -> StormbringerState:
        return cls(combat)

    def start(self) -> None:
        """A new combat's round 1: no counters, blows, changes of weapon or missed attack."""
        self._kept.update(counters={}, blows=[], changing=[])
        self._raw.pop("missed", None)

    def new_round(self) -> None:
        """No counters, changes of weapon or missed attack (the blows wait for their damage)."""
        self._kept.update(counters={}, changing=[])
        self._raw.pop("missed", None)

    @property
    def plan(self) -> RoundPlan:
        return RoundPlan(self.combat)

    @property
    def exchanges(self) -> Exchanges:
        return Exchanges(self.combat)

    @property
    def marks(self) -> Marks:
        return Marks(self.combat)

    def counters(self) -> dict[str, dict[str, Any]]:
        return self._kept["counters"]

    def surprise(self) -> dict[str, dict[str, Any]]:
        return self._kept["surprise"]

    def wounds(self) -> dict[str, list[str]]:
        return self._kept["wounds"]

    def stuns(self) -> dict[str, int]:
        return self._kept["stuns"]

    @property
    def tie_rank(self) -> list[str]:
        """Name keys in the order the GM broke DES ties (``!orden``)."""
        return list(self._raw.get("tie_rank", []))

    @tie_rank.setter
    def tie_rank(self, keys: list[str]) -> None:
        self._raw["tie_rank"] = keys


def side(ctx: Context, character: Character) -> str:
    return "players" if character.owner and not ctx.is_gm(character.owner) else "gm"


def combatants(ctx: Context, combat: Combat) -> list[Combatant]:
    state = StormbringerState.of(combat)
    rank = state.tie_rank
    out = []
    for name in combat.order:
        character = ctx.room.find_character(name)
        if character is not None:
            key = name_key(name)
            out.append(Combatant(character.name, sheet_int(character, "des"), phase_kind(character),
                                 side(ctx, character), key in state.marks.changing,
                                 rank.index(key) if key in rank else len(rank)))
    return out


def order_round(ctx: Context, combat: Combat, round_number: int) -> RoundPhases:
    """Phases of ``round_number`` from the sheets; the turn order is missile, melee, then the rest."""
    phases, combat.order = round_order(ctx, combat, combat.order, round_number)
    StormbringerState.of(combat).plan.worked_out(phases, combat.order)
    return phases


def round_order(ctx: Context, combat: Combat, names: list[str], round_number: int) -> tuple[RoundPhases, list[str]]:
    """The phases of ``names`` in ``round_number`` and the turn order they give."""
    fighters = combatants(ctx, replace(combat, order=names))
    phases = round_phases(fighters, round_number, StormbringerState.of(combat).plan.first)
    acting = set(phases.missile) | set(phases.melee)
    rest = [c.name for c in sorted(fighters, key=lambda c: (-c.dex, c.tie_rank)) if c.name not in acting]
    return phases, [*phases.missile, *phases.melee, *rest]


def reslot(ctx: Context, combat: Combat, name: str) -> None:
    """``name``'s DES changed (``!ficha``): still to declare or to attack, it moves to the slot its DES
    gives in this stage, as ``!entra`` places one (nobody else moves); once its turn has come, nothing."""
    keys = [name_key(n) for n in combat.order]
    if name_key(name) not in keys or keys.index(name_key(name)) <= combat.turn:
        return
    intent = declaring(combat)
    shown = combat.order.pop(keys.index(name_key(name)))
    phases, ideal = round_order(ctx, combat, [*combat.order, shown], max(combat.round, 1))
    place_late(combat, shown, phases.intent if intent else ideal)
    StormbringerState.of(combat).plan.worked_out(phases, combat.order)


def ties(ctx: Context, combat: Combat) -> list[list[str]]:
    """The DES ties among those still to declare or to attack in this stage that the GM has not ordered."""
    if ordered_by_hand(combat):
        return []
    ranked = StormbringerState.of(combat).tie_rank
    ahead = combat.order[max(combat.turn, 0):]
    fighters = [c for c in combatants(ctx, combat) if c.name in ahead]
    return [names for names in tied(fighters, declaring(combat))
            if not all(name_key(n) in ranked for n in names)]


def settle_tie(ctx: Context, combat: Combat, name: str) -> None:
    """The GM moved ``name`` among those it tied with (``!orden``): their order now is the one kept for the
    rest of the fight, in the declarations and the attacks alike, and the order stays worked out."""
    state = StormbringerState.of(combat)
    group = next((names for names in tied(combatants(ctx, combat), state.plan.stage == "intent") if name in names),
                 [name])
    keys = [name_key(n) for n in group]
    state.tie_rank = [k for k in state.tie_rank if k not in keys] + keys
    phases, _ = round_order(ctx, combat, combat.order, max(combat.round, 1))
    state.plan.worked_out(phases, combat.order)


def begin_intent(combat: Combat, phases: RoundPhases) -> None:
    """The round starts with the declarations: the turns go to the declarers, lowest DEX first."""
    combat.order = list(phases.intent)
    StormbringerState.of(combat).plan.intent(combat.order)


def declaring(combat: Combat) -> bool:
    """The declarations of intent are going round (and the order is still the worked-out one)."""
    return StormbringerState.of(combat).plan.stage == "intent" and not ordered_by_hand(combat)


def last_declarer(ctx: Context, combat: Combat, after: int = 1) -> bool:
    """Nobody from ``combat.turn + after`` on is left to declare (who cannot act declares nothing)."""
    return not any(can_act(ctx, name) for name in combat.order[combat.turn + after:])


def begin_actions(ctx: Context, combat: Combat) -> RoundPhases:
    """After the last declaration: the attack phases, worked out again (a declared change of weapon
    costs 5 DEX); the next turn is the first of them."""
    phases = order_round(ctx, combat, max(combat.round, 1))
    StormbringerState.of(combat).plan.actions()
    combat.turn = -1
    return phases


def ordered_by_hand(combat: Combat) -> bool:
    """The GM set the turns (``!turnos``) since the order was last worked out from the sheets. The dead
    leaving the order (``bot.core.combat.drop_dead``) keep it worked out: what is left of it still counts."""
    worked_out = StormbringerState.of(combat).plan.order
    if worked_out is None:
        return True
    return [name for name in worked_out if name in combat.order] != combat.order


def blows(combat: Combat) -> list[dict[str, Any]]:
    """The landed attacks awaiting defence or damage, oldest first."""
    return StormbringerState.of(combat).exchanges.blows()


def aims_at(blow: dict[str, Any], name: str) -> bool:
    """The blow is at ``name``, or at nobody named yet."""
    return blow["target"] is None or name_key(blow["target"]) == name_key(name)


def pending_blow(combat: Combat | None, name: str) -> dict[str, Any] | None:
    """The oldest blow that hit ``name`` (or nobody named) and was not stopped: the next damage."""
    if combat is None:
        return None
    return next((b for b in blows(combat) if b["landed"] and aims_at(b, name)), None)


def close_round_blows(combat: Combat) -> None:
    """At a new round: the stopped blows go, and the others can no longer be defended (they wait for
    their damage)."""
    exchanges = StormbringerState.of(combat).exchanges
    exchanges.keep_blows([{**b, "defended": True} for b in exchanges.blows() if b["landed"]])


def counter(combat: Combat, name: str) -> RoundCounter:
    return RoundCounter.from_dict(StormbringerState.of(combat).counters().get(name_key(name), {}))


def save_counter(combat: Combat, name: str, value: RoundCounter) -> None:
    StormbringerState.of(combat).counters()[name_key(name)] = value.to_dict()


def surprise_round(combat: Combat, start: int) -> int:
    """The surprise's own round number (1 = its first round) in the combat's current round."""
    return max(combat.round, 1) - start + 1


def limits(combat: Combat, name: str) -> ActionLimits:
    entry = StormbringerState.of(combat).surprise().get(name_key(name))
    if entry is None:
        return NORMAL
    return SurpriseState.from_dict(entry).limits(surprise_round(combat, int(entry["from"])))


def set_surprise(combat: Combat, name: str, state: SurpriseState) -> None:
    StormbringerState.of(combat).surprise()[name_key(name)] = {**state.to_dict(), "from": max(combat.round, 1)}


def surprise_left(combat: Combat, name: str) -> int:
    """Rounds of surprise still to come, this one included (ambush only; 0 otherwise)."""
    entry = StormbringerState.of(combat).surprise().get(name_key(name))
    if entry is None or entry["kind"] != "ambush":
        return 0
    return max(0, int(entry["rounds"]) - surprise_round(combat, int(entry["from"])) + 1)


def prune_surprise(combat: Combat) -> None:
    """Drop surprise entries that no longer limit anyone."""
    table = StormbringerState.of(combat).surprise()
    for key in [k for k, v in table.items() if SurpriseState.from_dict(v).limits(
            surprise_round(combat, int(v["from"]))) == NORMAL]:
        del table[key]


def wounds(combat: Combat, name: str) -> list[str]:
    return list(StormbringerState.of(combat).wounds().get(name_key(name), []))


def add_wound(combat: Combat, name: str, code: str) -> None:
    codes = StormbringerState.of(combat).wounds().setdefault(name_key(name), [])
    if code not in codes:
        codes.append(code)


def disarmed(combat: Combat, name: str) -> bool:
    """Disarmed by a critical (``!desarmar``) until a weapon is drawn or picked up (``!arma``)."""
    return name_key(name) in StormbringerState.of(combat).marks.disarmed


def stunned(combat: Combat, name: str) -> bool:
    return "stunned" in wounds(combat, name)


def stun(combat: Combat, name: str) -> None:
    """Stunned by a critical (or by the GM) from this round on."""
    add_wound(combat, name, "stunned")
    StormbringerState.of(combat).stuns().setdefault(name_key(name), max(combat.round, 1))


def lift_stun(combat: Combat, name: str) -> int:
    """The GM ends the stun: the rounds it lasted (the one it began in counts)."""
    state = StormbringerState.of(combat)
    lasted = stun_rounds(combat, name)
    state.wounds()[name_key(name)] = [c for c in wounds(combat, name) if c != "stunned"]
    state.stuns().pop(name_key(name), None)
    return lasted


def stun_since(combat: Combat, name: str) -> int:
    """The round the stun began (1 for one kept by an older version, which did not note it)."""
    return int(StormbringerState.of(combat).stuns().get(name_key(name), 1))


def stun_rounds(combat: Combat, name: str) -> int:
    """Rounds the stun has lasted, the current one included."""
    return max(combat.round, 1) - stun_since(combat, name) + 1
