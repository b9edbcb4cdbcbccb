"""What an attack is at the Stormbringer table, shared by ``!ataque`` and a named attack roll (``!tiro
Espada``): the weapon it uses, whether the round still allows it, the blow it leaves, and the defences
the victim still has against that blow."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.core.api import (
    Character,
    Combat,
    Context,
)
from bot.games.stormbringer import sheet as sh
from bot.games.stormbringer import state as st
from systems.refusal import Refusal
from systems.stormbringer.combat import RoundCounter
from systems.stormbringer.rules import Modifier, unfit_modifier
from systems.stormbringer.syntax import SkillRequest


def refuse(code: str, **params: Any) -> Refusal:
    """A stormbringer rule or argument problem (``templates/stormbringer/table_refused.txt``)."""
    return Refusal("stormbringer/table_refused", code=code, **params)


def able(combat: Combat, character: Character, action: str) -> None:
    """Stunned or surprised combatants may not do ``action`` ("attack", "parry", "dodge"), and nobody
    attacks while the declarations of intent go round."""
    if action == "attack" and st.declaring(combat):
        raise refuse("declaring", name=combat.current)
    if st.stunned(combat, character.name):
        raise refuse("stunned", name=character.name)
    if not getattr(st.limits(combat, character.name), action):
        raise refuse("surprised", name=character.name, action=action)


@dataclass(frozen=True, slots=True)
class Weapon:
    """The weapon an attack or a parry uses: the sheet's field (``arma`` or ``arma2``), its kind, and
    the round's slot it takes ("main", "second" or "riposte")."""

    field: str
    kind: str
    slot: str

    @property
    def shield(self) -> bool:
        return self.kind == "shield"


def attack_weapon(attacker: Character, skill: str | None, second: bool, ambidextrous: bool,
                  riposte: bool) -> Weapon:
    """The weapon of an attack with ``skill`` (None: a percentage given), ``dos armas`` (``second``) and
    ``ambidiestro`` as asked; refused when the sheet has no second weapon or no ambidexterity."""
    if second and sh.weapon_kind(attacker, "arma2") == "none":
        raise refuse("no_second_weapon", name=attacker.name)
    if ambidextrous and not sh.yes(attacker, "ambidiestro"):
        raise refuse("not_ambidextrous", name=attacker.name)
    shield_second = skill == "escudo" and sh.weapon_kind(attacker, "arma2") == "shield"
    field = "arma2" if second or shield_second else "arma"
    kind = sh.SKILL_KINDS.get(skill or "", sh.weapon_kind(attacker, field) if skill in (None, "ataque") else "melee")
    slot = "riposte" if riposte else "second" if field == "arma2" else "main"
    return Weapon(field, kind, slot)


def shield_skill(attacker: Character, weapon: Weapon, skill: str | None, req: SkillRequest) -> str | None:
    """«Con cada arma tenemos un % de ataque»: a shield attacks with the sheet's Escudo, not the Ataque of
    the weapon in hand (``req.base`` set to it); the skill the blow marks for experience."""
    if weapon.shield and skill == "ataque" and isinstance(attacker.sheet.get("escudo"), int):
        req.base = attacker.sheet["escudo"]
        return "escudo"
    return skill


def check_weapon(combat: Combat | None, character: Character, weapon: Weapon) -> None:
    """A broken weapon, or a disarmed fighter's weapon in hand, neither attacks nor parries."""
    if sh.yes(character, f"{weapon.field}_rota"):
        raise refuse("broken_weapon", name=character.name)
    if combat is not None and weapon.field == "arma" and st.disarmed(combat, character.name):
        raise refuse("disarmed", name=character.name)


def check_slot(count: RoundCounter, attacker: Character, weapon: Weapon) -> None:
    code = count.attack_refusal(weapon.slot, weapon.shield)
    if code is not None:
        raise refuse(code, name=attacker.name)


def fitness(character: Character, weapon: Weapon, base: int) -> list[Modifier]:
    """Without the FUE and DES the weapon needs, attack and parry are at 5%."""
    return [unfit_modifier(base)] if sh.unfit(character, weapon.field) else []


def add_blow(combat: Combat, attacker: Character, target: Character | None, skill: str | None,
             critical: bool, weapon: Weapon) -> dict[str, Any]:
    blow = {"attacker": attacker.name, "target": target.name if target else None, "skill": skill,
            "critical": critical, "weapon": weapon.kind, "field": weapon.field,
            "missile": weapon.kind in sh.MISSILE_KINDS, "defended": False, "landed": True, "round": combat.round}
    st.blows(combat).append(blow)
    st.StormbringerState.of(combat).exchanges.miss(False)
    return blow


def missed(combat: Combat) -> None:
    """The latest attack missed: a defence now has no blow to answer (the older ones wait for damage)."""
    st.StormbringerState.of(combat).exchanges.miss(True)


def defences(ctx: Context, combat: Combat, blow: dict[str, Any]) -> list[str] | None:
    """What the blow's victim may still try against it ("parry", "dodge"); None when no victim is named."""
    target = ctx.room.find_character(blow["target"]) if blow["target"] else None
    if target is None:
        return None
    if ctx.game.combat.vitality(ctx, target) != "up" or st.stunned(combat, target.name):
        return []
    limits = st.limits(combat, target.name)
    undodgeable = blow["weapon"] in sh.UNDODGEABLE_KINDS
    out = []
    if limits.parry and st.counter(combat, target.name).can_parry() and (not undodgeable or sh.has_shield(target)):
        out.append("parry")
    if limits.dodge and not undodgeable:
        out.append("dodge")
    return out


def open_blow(ctx: Context, combat: Combat, defender: Character | None) -> dict[str, Any]:
    """The latest blow of this round still to be defended, at ``defender`` (None: the GM defends the
    latest blow's victim); the refusals say why there is none."""
    this_round = [b for b in st.blows(combat) if b["round"] == combat.round]
    waiting = [b for b in this_round if not b["defended"]
               and (defender is None or st.aims_at(b, defender.name))]
    if waiting:
        return waiting[-1]
    if not this_round or st.StormbringerState.of(combat).exchanges.missed:
        raise refuse("no_blow")
    latest = this_round[-1]
    if defender is None or st.aims_at(latest, defender.name):
        raise refuse("already_defended", name=latest["target"] or (defender.name if defender else ""))
    raise refuse("not_target", name=defender.name, target=latest["target"], attacker=latest["attacker"])
