"""Savage Worlds rolls from the sheet and the table's state.

``/tiro Disparar vs 6 cobertura media`` rolls the sheet's Disparar die (d4 -2 without the skill);
``/tiro Pelear contra Orco`` uses the Orco's Parry as the TN; ``/tiro d8 vs 4`` stays an expression.
Either way, unless the roll says ``sin estado``, the bot adds what the table knows: wounds (less
Nervios de acero), fatigue, the joker's +2 while the actor holds one, the multi-action penalty
declared this turn (``acciones N``), and the wild die only for Wild Cards. A Shaken character rolls
nothing but what the state itself requires (Spirit to recover, soak, Vigor).
"""

from __future__ import annotations

import re

from bot.core import combat as rounds
from bot.core.context import Context
from bot.core.rolls import SheetRoll, opponent, stamp
from bot.core.sheets import find_field, shown_name
from bot.core.state import Character
from bot.games.savage.flow import has_joker, mark_recovery, recovery_rolled
from bot.games.savage.state import ATTRIBUTES, SKILLS, nerves_of, normal_die, savage_of, sheet_die, store
from systems.refusal import Refusal
from systems.savage.state import recover_at_turn_start
from systems.savage.syntax import fold, parse_savage

NAMES = {
    "agilidad": "Agilidad", "astucia": "Astucia", "espiritu": "Espíritu", "fuerza": "Fuerza", "vigor": "Vigor",
    "atletismo": "Atletismo", "conocimientos_generales": "Conocimientos Generales", "notar": "Notar",
    "persuadir": "Persuadir", "sigilo": "Sigilo", "academicas": "Académicas", "apostar": "Apostar",
    "batalla": "Batalla", "cabalgar": "Cabalgar", "ciencia": "Ciencia", "conducir": "Conducir",
    "disparar": "Disparar", "electronica": "Electrónica", "fe": "Fe", "hechiceria": "Hechicería",
    "idiomas": "Idiomas", "interpretar": "Interpretar", "intimidar": "Intimidar", "investigar": "Investigar",
    "latrocinio": "Latrocinio", "navegar": "Navegar", "ocultismo": "Ocultismo", "pelear": "Pelear",
    "pilotar": "Pilotar", "provocar": "Provocar", "psionica": "Psiónica", "reparar": "Reparar", "sanar": "Sanar",
    "supervivencia": "Supervivencia", "concentracion": "Concentración", "ciencia_extrana": "Ciencia Extraña",
    "informatica": "Informática", "parada": "Parada", "dureza": "Dureza", "paso": "Paso", "bennies": "Bennies",
    "heridas": "Heridas", "fatiga": "Fatiga", "comodin": "Comodín", "grupo": "Grupo",
    "nervios_de_acero": "Nervios de acero", "arma": "Arma", "arma_tipo": "Tipo de arma", "arma_dano": "Daño",
}
ALIASES = {
    "agi": "agilidad", "ast": "astucia", "esp": "espiritu", "fue": "fuerza", "vig": "vigor",
    "pelea": "pelear", "disparo": "disparar", "disparos": "disparar", "atletismo_lanzar": "atletismo",
    "lanzar": "atletismo", "arrojar": "atletismo", "conocimientos": "conocimientos_generales",
    "conocimiento_general": "conocimientos_generales", "saber": "academicas", "sanacion": "sanar",
    "curar": "sanar", "montar": "cabalgar", "robar": "latrocinio", "hackear": "informatica", "hacker": "informatica",
    "tacticas": "batalla", "nervios": "nervios_de_acero", "dano": "arma_dano", "danio": "arma_dano",
    "tipo": "arma_tipo", "pa": "paso",
}
UNTRAINED = "d4"
RANGED_WORDS = ("distancia", "disparo", "proyectil", "ranged")
DEFAULT_RANGED_TN = 4
DEFAULT_PARRY = 2
MAX_ACTIONS = 3
ACTIONS_KEY = "_acciones"
"""Sheet key of the actions the character declared for one combat turn: ``[round, turn, N]`` (out of
combat, ``acciones N`` counts for that roll only)."""
SHAKEN_ALLOWS = frozenset({"soak", "recovery", "incapacitation", "bleeding"})
"""What a Shaken character may still roll: what the state itself requires."""
_ACTIONS = re.compile(r"^acciones?$")
_AGAINST = ("contra", "vs")


class SavageSheetRules:
    def roll(self, ctx: Context, actor: Character | None, text: str, auto: bool) -> SheetRoll | None:
        made = self._roll(ctx, actor, text, auto)
        if made is not None and actor is not None and made.outcome.as_json().get("kind") == "recovery":
            recover(ctx, actor, made.outcome.as_json())
            made.changes_state = True
        return made

    def _roll(self, ctx: Context, actor: Character | None, text: str, auto: bool) -> SheetRoll | None:
        words = text.split()
        if actor is not None and words and fold(words[0]) in _DAMAGE_VERBS and not _starts_with_dice(words[1:]):
            damage = weapon_damage(actor)
            if damage is None:
                raise Refusal("savage/table_error", code="no_weapon", name=actor.name)
            words = [words[0], damage, *words[1:]]
        key, used = _leading_trait(ctx, words)
        if key is not None and len(words) > used and normal_die(words[used]):
            key, used = None, 0  # a verb with its die (``espiritu d6``): the system's own syntax
        label = ""
        added: list[str] = []
        if key is not None:
            if actor is None:
                raise Refusal("no_character")
            die = normal_die(str(actor.sheet.get(key, "")))
            if die is None:
                die = UNTRAINED
                if key in SKILLS:
                    added.append("sin entrenar")
            label = f"{shown_name(ctx.game, key)} {die}"
            recovering = key == "espiritu" and actor is not None and savage_of(actor).shaken
            words = [*(["espiritu"] if recovering else []), die, *words[used:]]
        words = _against(ctx, words)
        words, declared = _declared_actions(ctx, actor, words)
        text = " ".join(words)
        if actor is None or (key is None and not auto):
            return None if key is None else SheetRoll(ctx.system.roll(text, ctx.rng), label=label, replay=text)
        request = parse_savage(text)
        if request is None and key is None:
            return None
        kind = request.kind if request is not None else "dice"
        if kind == "recovery" and recovery_rolled(ctx, actor):
            raise Refusal("savage/table_error", code="recovered_already", name=actor.name,
                          bennies=savage_of(actor).bennies)
        if kind not in SHAKEN_ALLOWS:
            rounds.require_up(ctx, actor)
            if savage_of(actor).shaken:
                raise Refusal("savage/table_error", code="shaken_cannot_act", name=actor.name,
                              bennies=savage_of(actor).bennies)
        if request is None:
            return SheetRoll(ctx.system.roll(text, ctx.rng), label=label, replay=text)
        if not savage_of(actor).wild_card and kind != "damage" and "extra" not in request.keywords:
            added.append("extra")
        if auto:
            added += _state_words(ctx, actor, kind, request.keywords, declared)
        full = " ".join([text, *added])
        outcome = ctx.system.roll(full, ctx.rng)
        reasons = {_reason(word) for word in added}
        applied = [(m["reason"], m["value"]) for m in outcome.as_json().get("modifiers", []) if m["reason"] in reasons]
        if key is not None and "sin entrenar" in added and ("sin_entrenar", -2) not in applied:
            applied.append(("sin_entrenar", -2))
        return SheetRoll(outcome, applied, label, full)


def recover(ctx: Context, actor: Character, roll: dict[str, object]) -> None:
    """A Spirit roll of a Shaken character is its recovery roll (as ``!recuperar``): success ends Shaken."""
    savage = savage_of(actor)
    if savage.shaken:
        rounds.require_up(ctx, actor)
        after = recover_at_turn_start(savage, str(roll.get("outcome")))
        if after != savage:
            store(actor, after)
        mark_recovery(ctx, actor)


def _starts_with_dice(words: list[str]) -> bool:
    """``daño 2d6 ...`` or ``daño fue d8+d6``: the damage is given, not the sheet's."""
    first = fold(words[0]) if words else ""
    return bool(first) and (first[0].isdigit() or first.startswith(("d", "fue")))


def _reason(word: str) -> str:
    return {"sin entrenar": "sin_entrenar", "comodin": "comodin", "extra": "extra"}.get(word, word.split()[0])


def _leading_trait(ctx: Context, words: list[str]) -> tuple[str | None, int]:
    """A trait named at the start of the roll (``Disparar``, ``Conocimientos Generales``)."""
    for cut in range(min(len(words), 3), 0, -1):
        key = find_field(ctx.game, " ".join(words[:cut]))
        if key in ATTRIBUTES or key in SKILLS:
            return key, cut
    return None, 0


def _against(ctx: Context, words: list[str]) -> list[str]:
    """``contra NOMBRE``: the TN of a trait roll is that character's Parry (a number after ``contra``
    stays a TN; any other roll keeps the name, so no message echoes the Parry)."""
    if not (words and normal_die(words[0])):
        return words
    for i, word in enumerate(words):
        if fold(word) in _AGAINST and i + 1 < len(words):
            target, used = opponent(ctx, words[i + 1:])
            if target is not None:
                parry = target.sheet.get("parada", DEFAULT_PARRY)
                return [*words[:i], "vs", str(parry), *words[i + 1 + used:]]
    return words


def _declared_actions(ctx: Context, actor: Character | None, words: list[str]) -> tuple[list[str], int]:
    """``acciones N`` declares a multi-action turn; without it, what the actor declared this turn."""
    for i, word in enumerate(words[:-1]):
        if _ACTIONS.match(fold(word)) and words[i + 1].isdigit():
            count = int(words[i + 1]) if len(words[i + 1]) <= 2 else MAX_ACTIONS + 1
            if not 1 <= count <= MAX_ACTIONS:
                raise Refusal("savage/table_error", code="bad_actions", limit=MAX_ACTIONS)
            now = stamp(ctx)
            if actor is not None and now is not None:
                actor.sheet[ACTIONS_KEY] = [*now, count]
            return [*words[:i], *words[i + 2:]], count
    declared = actor.sheet.get(ACTIONS_KEY) if actor is not None else None
    now = stamp(ctx)
    if now is not None and isinstance(declared, list) and len(declared) == 3 and declared[:2] == now:
        return words, int(declared[2])
    return words, 1


def _state_words(ctx: Context, actor: Character, kind: str, given: frozenset[str], declared: int) -> list[str]:
    """The keywords of the actor's state that the roll does not already give (``given``: the parsed
    roll's keywords; a comment gives none)."""
    savage = savage_of(actor)
    wounds = max(0, savage.wounds - nerves_of(actor))
    words: list[str] = []
    if kind != "damage":
        if wounds and "wounds" not in given:
            words.append(f"heridas {wounds}")
        if savage.fatigue and "fatigue" not in given:
            words.append(f"fatiga {savage.fatigue}")
        if declared > 1 and "multi" not in given:
            words.append(f"multi {declared}")
    if has_joker(ctx, actor) and "joker" not in given:
        words.append("comodin")
    return words


def weapon_damage(character: Character) -> str | None:
    """The sheet's weapon damage with ``fue`` read as the Strength die (``fue+d6`` -> ``d8+d6``)."""
    text = str(character.sheet.get("arma_dano", "")).strip().lower()
    if not text:
        return None
    return _STRENGTH.sub(sheet_die(character, "fuerza") or UNTRAINED, text)


_STRENGTH = re.compile(r"\bfue(?:rza)?\b")
_DAMAGE_VERBS = ("dano", "danio", "damage")


def weapon_is_ranged(character: Character) -> bool:
    return fold(str(character.sheet.get("arma_tipo", ""))) in RANGED_WORDS
