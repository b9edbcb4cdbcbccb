"""Issue 23 item 5: what rendering a message may skip, and that the message stays the same."""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from jinja2 import BaseLoader, Environment, Template

from bot.core.render import Message, Renderer
from bot.core.table import Table
from tests.games.savage.test_sheets import CAST, FIRST
from tests.transcript import GM, make_table, play


def _counting(renderer: Renderer) -> list[str]:
    """The template names the renderer's loader is asked for from now on."""
    asked: list[str] = []
    loader = renderer.env.loader
    assert loader is not None
    original = loader.load

    def load(environment: Environment, name: str, globals: MutableMapping[str, Any] | None = None) -> Template:
        asked.append(name)
        return original(environment, name, globals)

    loader.load = load  # type: ignore[method-assign]
    return asked


def test_a_kind_with_no_html_is_looked_up_once(tmp_path: Path) -> None:
    """A failed lookup searches every folder each time (Jinja keeps only what it found): the renderer
    remembers the kinds that have only a plain template."""
    (tmp_path / "plain_kind.txt").write_text("Hola <{{ name }}>", encoding="utf-8")
    renderer = Renderer((), str(tmp_path))
    asked = _counting(renderer)
    first = renderer.render("plain_kind", name="Ana & Bruno")
    second = renderer.render("plain_kind", name="Ana & Bruno")
    assert first == second
    assert first.html == "Hola &lt;Ana &amp; Bruno&gt;"
    assert asked.count("plain_kind.html") == 1, asked


def test_an_html_that_includes_a_missing_template_falls_back_to_the_plain_text(tmp_path: Path) -> None:
    (tmp_path / "broken_kind.txt").write_text("Hola {{ name }}", encoding="utf-8")
    (tmp_path / "broken_kind.html").write_text("<b>{% include 'nowhere.html' %}</b>", encoding="utf-8")
    renderer = Renderer((), str(tmp_path))
    for _ in range(2):
        message = renderer.render("broken_kind", name="Ana")
        assert (message.body, message.html) == ("Hola Ana", "Hola Ana")


def test_a_kind_with_html_renders_it(tmp_path: Path) -> None:
    (tmp_path / "rich_kind.txt").write_text("Hola {{ name }}", encoding="utf-8")
    (tmp_path / "rich_kind.html").write_text("<b>Hola {{ name }}</b>", encoding="utf-8")
    renderer = Renderer((), str(tmp_path))
    assert isinstance(renderer.env.loader, BaseLoader)
    assert renderer.render("rich_kind", name="<Ana>").html == "<b>Hola &lt;Ana&gt;</b>"


def test_name_keys_are_remembered_only_for_short_names() -> None:
    """``name_key`` runs dozens of times per event on the room's few names: short ones are remembered,
    and text longer than any name is not, so what is kept stays small."""
    from bot.core.state import MAX_REMEMBERED_NAME, _short_name_key, name_key

    _short_name_key.cache_clear()
    assert name_key("Sör Brönn") == name_key("SOR BRONN") == "sor bronn"
    long_text = "Ñ" * (MAX_REMEMBERED_NAME + 1)
    assert name_key(long_text) == "n" * (MAX_REMEMBERED_NAME + 1)
    assert _short_name_key.cache_info().currsize == 2


def _renders(table: Table) -> list[str]:
    """The kinds ``table``'s renderer renders from now on, one entry per rendering."""
    kinds: list[str] = []
    original = table.renderer.render

    def render(kind: str, **context: Any) -> Message:
        kinds.append(kind)
        return original(kind, **context)

    table.renderer.render = render  # type: ignore[method-assign]
    return kinds


def test_a_message_naming_an_npc_that_shows_none_of_its_numbers_is_rendered_once() -> None:
    """The GMs' copy differs only where the room's copy asked (``gm_numbers``, ``gm_view``, a
    ``gm_sheet`` that said yes): a message that names an NPC and asks nothing is the GMs' copy too."""
    table = make_table()
    kinds = _renders(table)
    t = play("@gm:local: !pnj Orco", table)
    assert kinds.count("npcs_ready") == 1, kinds
    assert [a["text"] for a in t.for_line(1)] == [
        "👹 PNJ del máster: Orco. Entrará en el próximo combate (!combate, luego !iniciativa)."]


def test_the_gms_copy_of_a_roll_against_an_npc_is_still_rendered_and_sent() -> None:
    """The room's copy of a shot at an NPC asks for ``gm_numbers`` (its TN): the GMs get their copy."""
    table = make_table(system="savage", seed=3)
    kinds = _renders(table)
    t = play(CAST + "@bob:local: !tiro Disparar contra Orco", table)
    assert kinds.count("roll_by") == 2, kinds
    room, gm = [a for a in t.for_line(FIRST) if a["action"] == "send"]
    assert not room.get("gm_copy") and gm.get("gm_copy") and gm["private_to"] == GM
    assert "vs 4" in gm["text"] and "vs 4" not in room["text"]


def test_a_text_of_a_few_scalars_is_rendered_once(tmp_path: Path) -> None:
    """Reactions, the redaction reason and state labels are texts asked for on many events: rendered
    once per context; ``True`` and ``1`` stay apart, and other contexts are rendered each time."""
    (tmp_path / "label_kind.txt").write_text("{{ key }}={{ value }}", encoding="utf-8")
    renderer = Renderer((), str(tmp_path))
    asked: list[str] = []
    original = renderer.env.get_template

    def get_template(name: str, *args: Any, **kwargs: Any) -> Template:
        asked.append(name)
        return original(name, *args, **kwargs)

    renderer.env.get_template = get_template  # type: ignore[method-assign]
    assert [renderer.text("label_kind", key="herida", value=v) for v in (True, True, 1, 1)] == [
        "herida=True", "herida=True", "herida=1", "herida=1"]
    assert asked == ["label_kind.txt", "label_kind.txt"]
    assert renderer.text("label_kind", key="x", value=["a"]) == "x=['a']"
    assert renderer.text("label_kind", key="x", value=["a"]) == "x=['a']"
    assert len(asked) == 4


def test_a_kind_is_looked_up_once_and_renders_the_same_each_time(tmp_path: Path) -> None:
    """Templates are read once (``auto_reload`` is off): the renderer keeps each kind's pair of
    templates, so a message rendered again asks Jinja for none, and is the same message."""
    (tmp_path / "pair_kind.txt").write_text("Hola {{ name }}", encoding="utf-8")
    (tmp_path / "pair_kind.html").write_text("<b>Hola {{ name }}</b>", encoding="utf-8")
    (tmp_path / "lone_kind.txt").write_text("Adiós <{{ name }}>", encoding="utf-8")
    renderer = Renderer((), str(tmp_path))
    asked: list[str] = []
    original = renderer.env.get_template

    def get_template(name: str, *args: Any, **kwargs: Any) -> Template:
        asked.append(name)
        return original(name, *args, **kwargs)

    renderer.env.get_template = get_template  # type: ignore[method-assign]
    first = [renderer.render(kind, name="<Ana>") for kind in ("pair_kind", "lone_kind")]
    looked_up = list(asked)
    again = [renderer.render(kind, name="<Ana>") for kind in ("pair_kind", "lone_kind")]
    assert again == first == [Message("Hola <Ana>", "<b>Hola &lt;Ana&gt;</b>"),
                              Message("Adiós <<Ana>>", "Adiós &lt;&lt;Ana&gt;&gt;")]
    assert asked == looked_up and "pair_kind.txt" in looked_up, asked
    assert renderer.render("pair_kind", name="Bruno") == Message("Hola Bruno", "<b>Hola Bruno</b>")


def test_a_templates_globals_are_the_renderers_and_copy_fast(tmp_path: Path) -> None:
    """Each render copies the template's globals into its context: they are a plain dict (Jinja's
    ``ChainMap`` is copied key by key), with the renderer's globals in it."""
    (tmp_path / "flag_kind.txt").write_text("{{ gm_view }} {{ range(2)|list }}", encoding="utf-8")
    renderer = Renderer((), str(tmp_path))
    template = renderer.env.get_template("flag_kind.txt")
    assert type(template.globals) is dict and template.globals["gm_view"] is False
    assert renderer.render("flag_kind").body == "False [0, 1]"
