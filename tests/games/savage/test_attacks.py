"""Issue 21 (Savage Worlds by the book), the attack half: ``!ataque`` and ``contra NOMBRE`` as 000/001 say.

Each test quotes the sentence of the house rules (``../shared/rules/000_*``, ``001_*``) it implements.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from bot.console import ROOM_ID
from systems.savage import SYSTEM
from systems.savage.deck import ActionDeck, Card
from tests.games.savage.test_sheets import CAST, FIRST, roll
from tests.scripted import FaceRng
from tests.systems.savage.test_resolver import chains
from tests.transcript import assert_refused, make_table, play


def _first_seed(script: str, number: int, wanted, limit: int = 300):  # type: ignore[no-untyped-def]
    """The first seed whose roll answering ``number`` satisfies ``wanted`` (a deterministic search)."""
    for seed in range(1, limit):
        table = make_table(system="savage", seed=seed)
        t = play(script, table)
        if wanted(roll(t, number)["roll"]):
            return table, t
    raise AssertionError("no seed found")


def _damage(t, number: int) -> dict:  # type: ignore[no-untyped-def]
    shown = [r for r in t.full_rolls(number) if r.get("kind") == "damage"]
    assert shown, [a["text"] for a in t.for_line(number)]
    return {"roll": shown[-1], "text": "\n".join(t.texts(number))}


def _hits(r: dict) -> bool:
    return r["outcome"] in ("success", "raise")


def test_a_called_shot_to_the_head_in_ataque_adds_four_to_the_damage() -> None:
    """001: «Cabeza o puntos vitales (-4): Al golpear en la cabeza o los órganos vitales de una criatura
    viva, el atacante puede añadir +4 a su total de daño.»"""
    script = CAST + "@bob:local: !ataque Orco apuntado cabeza"
    _, t = _first_seed(script, FIRST, _hits)
    attack = roll(t, FIRST)["roll"]
    assert {"reason": "apuntado", "value": -4} in attack["modifiers"]
    damage = _damage(t, FIRST)
    assert {"reason": "apuntado", "value": 4} in damage["roll"]["modifiers"]
    assert "apuntado +4" in damage["text"]


def test_shooting_contra_an_npc_is_against_four_not_its_parry() -> None:
    """000: «El VO base para golpear con un ataque a distancia a un blanco situado a distancia corta es 4,
    como siempre.» Parry is only for «Ataques cuerpo a cuerpo»."""
    t = play(CAST + "@bob:local: !tiro Disparar contra Orco distancia media\n@bob:local: !tiro Pelear contra Orco\n"
             "@bob:local: !tiro Atletismo contra Orco", system="savage", seed=3)
    shot = roll(t, FIRST)["roll"]
    assert shot["tn"] == 4 and {"reason": "distancia", "value": -2} in shot["modifiers"]
    assert roll(t, FIRST + 1)["roll"]["tn"] == 7, "Fighting is against the Parry"
    assert roll(t, FIRST + 2)["roll"]["tn"] == 4, "Throwing (Atletismo) is a ranged attack: TN 4"


def test_a_skill_with_no_target_number_against_a_character_is_refused_with_the_reason() -> None:
    """000: the target number against a character is the Parry for «Ataques cuerpo a cuerpo» and 4 for
    «Ataques a distancia»; no other skill has one, so Persuadir contra Orco is not rolled against a Parry."""
    assert_refused(CAST, "@bob:local: !tiro Persuadir contra Orco", "Persuadir", system="savage")


def test_a_damage_roll_contra_a_character_is_against_its_toughness() -> None:
    """000: «El daño que realiza un ataque se compara con la Dureza de la víctima»."""
    t = play(CAST + "@bob:local: !tiro daño 2d6 contra Orco", system="savage", seed=3)
    damage = roll(t, FIRST)
    assert damage["roll"]["kind"] == "damage" and damage["roll"]["toughness"] == 7
    room = next(a for a in t.for_line(FIRST) if a["action"] == "send" and not a.get("gm_copy"))
    assert "7" not in room["text"].split("=")[-1], "the room's copy keeps the NPC's Toughness out"


def test_rate_of_fire_with_targets_keeps_the_wounds_and_the_joker() -> None:
    """000: «Cada herida que un personaje Comodín reciba impone una penalización acumulativa de -1 ... a
    todas sus tiradas de rasgo»; the target list «en orden a los enemigos que hayas declarado»."""
    t = play(CAST + "@gm:local: !ficha Kira heridas 1\n@bob:local: !tiro rof 3 d8 objetivos Orco, Lobo\n"
             "@bob:local: !tiro rof 2 d8 objetivos Orco, Lobo cobertura media\n"
             "@bob:local: !tiro cdf 3 Disparar objetivos Orco, Lobo", system="savage", seed=3)
    first = roll(t, FIRST + 1)["roll"]
    assert first["targets"] == ["Orco", "Lobo"] and {"reason": "heridas", "value": -1} in first["modifiers"]
    second = roll(t, FIRST + 2)["roll"]
    assert second["targets"] == ["Orco", "Lobo"], "a modifier word never becomes part of a name"
    assert {"reason": "cobertura", "value": -2} in second["modifiers"]
    named = next(a["roll"] for a in t.for_line(FIRST + 3) if a.get("roll", {}).get("kind") == "rof")  # then its damage
    assert named["kind"] == "rof" and named["expr"] == "1d8" and named["targets"] == ["Orco", "Lobo"]
    assert {"reason": "heridas", "value": -1} in named["modifiers"]


def test_the_weapon_kind_picks_fighting_or_shooting_and_no_weapon_is_strength_damage() -> None:
    """000: «Ataques cuerpo a cuerpo ... Pelear»; «La habilidad de Disparar se emplea con todo tipo de armas
    de proyectil»; «Daño desarmado: Un combatiente desarmado solamente causa su propia Fuerza como daño.»"""
    unarmed = "@gm:local: !pj Bruno @cid:local\n@gm:local: !ficha Bruno Fuerza d8, Pelear d6\n"
    script = CAST + unarmed + "@cid:local: !ataque Orco"
    _, t = _first_seed(script, FIRST + 2, lambda r: r["outcome"] == "success")
    assert roll(t, FIRST + 2)["roll"]["tn"] == 7 and "⚔️ Bruno → Orco" in roll(t, FIRST + 2)["text"]
    assert _damage(t, FIRST + 2)["roll"]["expr"] == "1d8!", "unarmed: the Strength die (Fuerza d8)"
    t = play(CAST + "@bob:local: !ataque Orco", system="savage", seed=3)
    assert roll(t, FIRST)["roll"]["tn"] == 4 and roll(t, FIRST)["roll"]["expr"] == "1d8"  # Disparar d8


def test_a_players_damage_applies_only_as_the_damage_of_their_own_hit_this_turn() -> None:
    """000: «Tras una tirada exitosa cuerpo a cuerpo o a distancia, el atacante debe determinar el daño
    ocasionado.» Any other damage is the GM's to apply."""
    setup = CAST + "@gm:local: !combate\n@gm:local: !turnos Kira, Orco\n"
    assert_refused(setup, "@bob:local: !daño Orco 2d8", "impacto", system="savage")
    script = setup + "@bob:local: !tiro Disparar contra Orco\n@bob:local: !daño Orco 2d8\n@bob:local: !daño Orco 2d8"
    # The turn's end brings the GMs' copies (with the Orco's Toughness) of the turn.
    _, t = _first_seed(script + "\n@gm:local: !siguiente", FIRST + 2, _hits)
    assert _damage(t, FIRST + 3)["roll"]["toughness"] == 7
    assert "impacto" in t.text(FIRST + 4), "one hit, one damage roll"


def test_ataque_refuses_a_target_out_of_the_fight_and_oneself() -> None:
    """000: «Los Extras heridos quedan fuera de juego... están fuera de combate»; a character does not
    attack itself."""
    assert_refused(CAST + "@gm:local: !ficha Orco fuera 1", "@bob:local: !ataque Orco", "fuera", system="savage")
    assert_refused(CAST, "@bob:local: !ataque Kira", "sí mism", system="savage")


def test_the_gm_names_the_attacker_of_ataque_as_in_tiro() -> None:
    """000: the GM plays the NPCs' attacks; ``!ataque Orco contra Kira`` is the Orco's Fighting against
    Kira's Parry («El Valor Objetivo ... es igual a su valor de Parada»)."""
    t = play(CAST + "@gm:local: !ataque Orco contra Kira", system="savage", seed=3)
    attack = roll(t, FIRST)
    assert attack["roll"]["tn"] == 5 and attack["roll"]["wild"] is None and "Orco" in attack["text"]


def _orc_state(table) -> tuple[bool, bool]:  # type: ignore[no-untyped-def]
    sheet = table.room(ROOM_ID).find_character("Orco").sheet
    return bool(sheet.get("fuera")), bool(sheet.get("aturdido"))


def test_rerolling_an_attack_takes_its_damage_back_and_rolls_the_new_results() -> None:
    """000: «Tras una tirada exitosa cuerpo a cuerpo o a distancia, el atacante debe determinar el daño
    ocasionado» and «Cuando un ataque impacta con uno o más aumentos, añade al daño total ... +1d6»: the
    damage is the rerolled attack's, not the first result's. Changed by issue 31 item 3 (000: the damage
    roll, «ni se puede gastar benis para influir en el resultado»): a hit that stays a hit with the same
    raise keeps its damage, and a new raise adds only its d6 to the dice already rolled."""
    seen = set()
    for seed in range(1, 400):
        table = make_table(system="savage", seed=seed)
        t = play(CAST + "@bob:local: !ataque Orco\n@bob:local: !repetir", table)
        first, second = roll(t, FIRST)["roll"], roll(t, FIRST + 1)["roll"]
        if second["total"] <= first["total"] or not _hits(second):
            continue
        if _hits(first) and first["outcome"] == second["outcome"]:
            rolled = _damage(t, FIRST)["roll"]
            assert not [r for r in t.full_rolls(FIRST + 1) if r["kind"] == "damage"], "the damage is kept"
            assert _orc_state(table) == (bool(rolled["wounds"]), bool(rolled["shaken"]))
            seen.add("kept")
            continue
        damage = _damage(t, FIRST + 1)["roll"]
        assert damage["toughness"] == 7 and ("+1d6!" in damage["expr"]) == (second["outcome"] == "raise")
        assert _orc_state(table) == (bool(damage["wounds"]), bool(damage["shaken"])), "only the new damage"
        if _hits(first):
            before = _damage(t, FIRST)["roll"]["dice"]
            assert damage["dice"][:len(before)] == before, "the same dice, and the raise d6"
        seen.add("raise" if _hits(first) else "miss")
        if seen == {"kept", "raise", "miss"}:
            return
    raise AssertionError(f"cases seen: {seen}")


def _damage_effects(text: str) -> dict[tuple[bool, int], Fraction]:
    """Exact distribution of (Shaken, wounds) of a 2d6 damage roll, every face chain enumerated."""
    out: dict[tuple[bool, int], Fraction] = {}
    for (a, pa), (b, pb) in product(chains(6), chains(6)):
        rng = FaceRng([(f, 6) for f in a] + [(f, 6) for f in b])
        effect = SYSTEM.roll(text, rng).effect
        assert rng.exhausted()
        key = (effect.shaken, effect.wounds)
        out[key] = out.get(key, Fraction(0)) + pa * pb
    return out


def test_armour_counts_in_toughness_and_a_called_shot_to_an_unarmoured_spot_ignores_it() -> None:
    """001: «Zona sin protección (¿?): El ataque golpea una zona desprotegida e ignora la bonificación que
    otorga la Armadura a la Dureza del objetivo.» By exact enumeration: against Dureza 7 (2), such a shot
    does what a hit against Dureza 5 does, and any other hit what one against 7 does."""
    assert _damage_effects("daño 2d6 vs 7 armadura 2 apuntado zona -4") == _damage_effects("daño 2d6 vs 5")
    assert _damage_effects("daño 2d6 vs 7 armadura 2") == _damage_effects("daño 2d6 vs 7")
    assert _damage_effects("daño 2d6 vs 7 armadura 2 apuntado cabeza") == _damage_effects("daño 2d6+4 vs 7")
    t = play(CAST + "@gm:local: !ficha Orco armadura 2\n@gm:local: !daño Orco 2d6 apuntado zona -4\n"
             "@gm:local: !daño Orco 2d6", system="savage", seed=3)
    ignored, worn = t.gm_text(FIRST + 1), t.gm_text(FIRST + 2)
    assert "vs 7 (2)" in worn and "vs 5 sin armadura" in ignored, (worn, ignored)
    assert " vs " not in t.texts(FIRST + 2)[0], "the room's copy keeps the NPC's numbers out"


def test_estado_shows_the_wound_penalty_on_pace() -> None:
    """000: «Cada herida que un personaje Comodín reciba impone una penalización acumulativa de -1 a su
    Paso (hasta un mínimo de 1)»."""
    t = play(CAST + "@gm:local: !ficha Kira heridas 2\n@gm:local: !combate\n@gm:local: !turnos Kira, Orco\n"
             "@gm:local: !estado", system="savage", seed=3)
    assert "Paso 4" in t.text(FIRST + 3)


def test_an_area_attack_rolls_damage_once_per_target() -> None:
    """000: «¡Hay que hacer una tirada de daño independiente por enemigo, tras ver si evitan o no! No vale
    tirar y repetir daño con benni para todos.»"""
    cast = CAST + "@gm:local: !pnj Lobo\n@gm:local: !ficha Lobo Dureza 5, Comodín no\n"
    t = play(cast + "@gm:local: !area 3d6 contra Orco, Lobo, Kira", system="savage", seed=3)
    rolls = [r for r in t.full_rolls(FIRST + 2) if r.get("kind") == "damage"]
    ids = {i for a in t.messages(FIRST + 2) for i in a.get("roll_ids") or [a.get("roll_id")] if i}
    assert len(ids) == 3, t.texts(FIRST + 2)
    assert {r["expr"] for r in rolls} == {"3d6!"}
    assert_refused(cast, "@bob:local: !area 3d6 contra Orco, Lobo", "impacto", system="savage")
    script = cast + "@bob:local: !tiro Disparar\n@bob:local: !area 2d8 contra Orco, Lobo\n@bob:local: !repetir"
    _, t = _first_seed(script, FIRST + 2, _hits)
    assert len([a for a in t.for_line(FIRST + 3) if a.get("roll", {}).get("kind") == "damage"]) >= 2
    again = [a.get("roll", {}).get("kind") for a in t.for_line(FIRST + 4) if "roll" in a]
    assert again and "damage" not in again, "a benny rerolls the attack roll, never the area's damage"


def test_ammunition_per_weapon_is_spent_by_shots_and_refilled_by_recargar() -> None:
    """000: «Dependiendo de la cadencia de fuego del arma, se gasta un número determinado de balas» (CdF 3:
    10) and «Recargar un arma con un cargador o similar es una acción»."""
    table = make_table(system="savage", seed=3)
    t = play(CAST + "@gm:local: !ficha Kira Munición 12, Cargador 30\n@bob:local: !tiro cdf 3 Disparar\n"
             "@bob:local: !tiro Disparar\n@bob:local: !tiro cdf 3 Disparar\n@bob:local: !recargar\n"
             "@bob:local: !ataque Orco", table)
    kira = table.room(ROOM_ID).find_character("Kira").sheet
    assert roll(t, FIRST + 1)["roll"]["ammo"] == 10
    assert "munición" in t.text(FIRST + 3).lower() and "1" in t.text(FIRST + 3)
    assert "30" in t.text(FIRST + 4)
    assert kira["municion"] == 29


def test_quick_redraws_five_or_lower_and_level_headed_keeps_the_best_of_two() -> None:
    """000: «Cuando uno de los personajes tenga ventajas como Rápido o Temple, déjale que las aplique sobre
    la carta recibida (pero solo una vez).» As Savage Worlds says: Rápido draws again a card of 5 or lower;
    Temple draws one more card and keeps the best (Temple mejorado, two more)."""
    deck = ActionDeck(pile=["K♠", "3♥", "4♦"])
    quick = deck.deal(["Kira"], edges={"Kira": (0, True)})
    assert quick.in_play == {"Kira": "K♠"} and sorted(quick.discards) == ["3♥", "4♦"]
    headed = ActionDeck(pile=["2♣", "Q♦", "5♥"]).deal(["Kira"], edges={"Kira": (1, False)})
    assert headed.in_play == {"Kira": "Q♦"} and headed.discards == ["5♥"] and headed.pile == ["2♣"]
    improved = ActionDeck(pile=["A♠", "2♣", "Q♦"]).deal(["Kira"], edges={"Kira": (2, False)})
    assert improved.in_play == {"Kira": "A♠"}
    plain = ActionDeck(pile=["K♠", "3♥"]).deal(["Kira"])
    assert plain.in_play == {"Kira": "3♥"}


def test_the_sheets_quick_and_level_headed_reach_the_deal() -> None:
    """000: Rápido y Temple «sobre la carta recibida»: the sheet's edges are applied by ``!iniciativa``."""
    deal = "@gm:local: !combate\n@gm:local: !iniciativa Kira, Orco\n"
    for seed in range(1, 200):
        plain = make_table(system="savage", seed=seed)
        play(CAST + deal, plain)
        if Card(plain.room(ROOM_ID).combat.data["deck"]["in_play"]["Kira"]).rank > 5:
            continue
        quick = make_table(system="savage", seed=seed)
        play(CAST + "@gm:local: !ficha Kira Rápido sí\n" + deal, quick)
        assert Card(quick.room(ROOM_ID).combat.data["deck"]["in_play"]["Kira"]).rank > 5
        return
    raise AssertionError("no low card in 200 seeds")
