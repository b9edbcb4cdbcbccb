"""The one read-only view of the table that the web pages read (``table_page``, ``screen_page``).

Everything the pages show or check goes through ``TableView``: the room a link opens, the boards
(each read from a copy of the room's committed state; the games' hooks only read), the acta's
sessions and its worker's render function, and what the GM reads of the table's answer to a
control. The pages import no core module, and the table's store is asked here only."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from markupsafe import Markup

from bot.core import combat as rounds
from bot.core import sheets
from bot.core.acta import FORMATS, Format
from bot.core.acta_document import NoSuchActa, Session, pick_sessions, render, sessions_of, style, style_hash
from bot.core.context import Context, FoundCommand
from bot.core.events import Action, Event, Send
from bot.core.records import ScreenAttack, ScreenControl
from bot.core.render import Renderer
from bot.core.rolls import record_row
from bot.core.state import RoomState
from bot.core.table import Table

__all__ = ["ACTA_FORMATS", "Format", "Session", "TableView", "render_acta"]

ACTA_FORMATS = FORMATS
render_acta = render
"""The acta document from its sessions (``render_acta(renderer, room_id, sessions, fmt)``): a
module-level function, so the acta's worker process can run it."""
SCREEN_HISTORY = 10
"""The last rolls the GM's screen shows (secret ones included)."""


class TableView:
    """The table as the pages see it: read, never changed (a control of the GM's screen goes to the
    table as a chat command, through its ``Screen`` transport)."""

    def __init__(self, table: Table) -> None:
        self._table = table

    @property
    def renderer(self) -> Renderer:
        return self._table.renderer

    @property
    def public_url(self) -> str:
        """``[web] public_url``, or "" when unset."""
        return self._table.settings.for_room("").public_url or ""

    def on_change(self, watcher: Callable[[str], None]) -> None:
        """``watcher(room_id)`` runs each time an event of a room commits."""
        self._table.watchers.append(watcher)

    # -- the links

    def room_of_page(self, token: str) -> str | None:
        """The room whose table page ``token`` opens now (a revoked token is in no index)."""
        room_id = self._table.store.rooms.for_token(token)
        return room_id if room_id is not None and self.page_is_current(room_id, token) else None

    def page_is_current(self, room_id: str, token: str) -> bool:
        return self._table.room(room_id).page_token == token

    def screen_of(self, token: str) -> tuple[str, str] | None:
        """(room, GM) of a screen link whose user the core counts a GM of the room now (``Table.is_gm``: a
        power level lowered, a ``-o`` or ``!master quitar`` ends it on the next request, with no message
        of theirs: the transport's ``admins`` event sets ``RoomState.admins`` at once)."""
        found = self._table.store.screen_links.link(token)
        if found is None or not self._table.is_gm(*found):
            return None
        return found

    # -- the boards

    def _read(self, room_id: str, viewer: str = "") -> tuple[RoomState, Context, list[dict[str, Any]]]:
        """A copy of the room's state, the context ``viewer`` sees it in, and the combat's rows
        (``rounds.board``), each marked ``npc`` when no player owns it."""
        room = RoomState.from_json(self._table.room(room_id).to_json())
        ctx = self._table.context_for(Event(room_id, viewer, "", ""), room)
        rows = rounds.board(ctx, room.combat) if room.combat else []
        for row in rows:
            character = room.find_character(row["name"])
            row["npc"] = character is None or character.npc or character.owner is None
        return room, ctx, rows

    def table_board(self, room_id: str) -> dict[str, Any]:
        """What the table page shows: nothing a player may not see."""
        room, ctx, rows = self._read(room_id)
        combat = room.combat
        return {
            "system": ctx.system.name,
            "combat": combat,
            "rows": rows,
            "current": combat.current if combat else None,
            "lock": room.lock,
            "exploration": room.exploration,
            "rolls": list(reversed(room.last_rolls)),
            "recording": room.acta.on,
            "has_acta": bool(self._table.store.acta.sessions(room_id)),
        }

    def screen_board(self, room_id: str, user_id: str) -> dict[str, Any]:
        """What the GM's screen shows: the table page's board and what only the GMs see."""
        room, ctx, rows = self._read(room_id, user_id)
        combat = room.combat
        for row in rows:
            character = room.find_character(row["name"])
            row["sheet"] = sheets.export(ctx.game, character)[0] if character else ""
            row["state"] = sheets.kept_state(ctx.game, character) if character else ""
        store = self._table.store
        hidden = [_shown_roll(r) for r in store.rolls.hidden(room_id)]
        last = [_shown_roll(r) for r in store.rolls.history(room_id, visible=False, limit=SCREEN_HISTORY)]
        granted = [{"name": c.name if (c := room.character_of(user)) else user, "only": room.grant_only.get(user)}
                   for user in room.granted]
        open_items = ctx.game.combat.pending(ctx, combat) if combat else []
        pending = [Markup(self.renderer.document(f"{ctx.game.key}/pending_{item.kind}", "html", p=item))
                   for item in open_items]
        notes = ctx.game.screen_notes
        shown_notes = Markup(self.renderer.document(f"{ctx.game.key}/screen_notes", "html", **notes(ctx))) \
            if notes is not None else ""
        return {
            "system": ctx.system.name,
            "combat": combat,
            "rows": rows,
            "current": combat.current if combat else None,
            "lock": room.lock,
            "exploration": room.exploration,
            "granted": granted,
            "pending": pending,
            "closable": list(dict.fromkeys((item.who, item.command) for item in open_items
                                           if item.closable and "cerrar" in ctx.game.screen_controls)),
            "notes": shown_notes,
            "game_controls": bool(ctx.game.screen_controls),
            "hidden": hidden,
            "hidden_names": list(dict.fromkeys(r["who"] for r in hidden if room.find_character(r["who"]))),
            "rolls": last,
            "gm_views": self._table.screens.gm_views(room_id),
            "names": [c.name for c in room.characters.values()],
            "order": combat.order if combat else [],
            "can": {key: ctx.find_command(key) is not None for key in ("damage", "heal")},
            "game": ctx.game.key,
            "attack": ctx.game.screen_attack if combat and combat.started else None,
            "turn": self.turn_members(room_id),
            "ties": ctx.game.combat.ties(ctx, combat) if combat and combat.started else [],
        }

    def screen_open(self, room_id: str, user_id: str) -> None:
        """The GM's screen of the room has a live stream now: the core sends that GM no private copies."""
        self._table.screens.seen(room_id, user_id)

    # -- the GM's controls

    def room(self, room_id: str) -> RoomState:
        """The room's committed state, to read (a control's form is checked against it)."""
        return self._table.room(room_id)

    def command_finder(self, room_id: str, user_id: str) -> Callable[[str], FoundCommand | None]:
        """The room's commands as its game finds them (the game's own first, then the core's)."""
        return self._table.context_for(Event(room_id, user_id, "", ""), self._table.room(room_id)).find_command

    def game_words(self, room_id: str) -> tuple[frozenset[str], frozenset[str], ScreenAttack | None,
                                                 tuple[str, ...], dict[str, ScreenControl]]:
        """What the room's game reads after a character's name, folded: its hit locations, and its own
        options (``!pnj``'s words). The screen's forms take the first and keep both out of names. Then its
        attack control, who acts in the current turn and the game's own controls."""
        game = self._table.context_for(Event(room_id, "", "", ""), self._table.room(room_id)).game
        return (game.locations, frozenset(game.npc_words), game.screen_attack, self.turn_members(room_id),
                game.screen_controls)

    def turn_members(self, room_id: str) -> tuple[str, ...]:
        """Who acts in the current turn: the one whose turn it is and those who share it (a group of
        Extras side by side in the order)."""
        room = self._table.room(room_id)
        combat = room.combat
        if combat is None or combat.current is None:
            return ()
        ctx = self._table.context_for(Event(room_id, "", "", ""), room)
        return tuple(c.name for c in rounds.turn_members(ctx, combat))

    @staticmethod
    def answered_to(actions: list[Action], user_id: str) -> list[str]:
        """What the GM reads of the table's answer: the room's message and those sent to them (the GMs'
        copies hold what the room's message leaves out)."""
        return [action.message.body for action in actions if isinstance(action, Send)
                and (action.private_to is None or user_id == action.private_to or user_id in action.private_also)]

    # -- the acta

    def acta_numbers(self, room_id: str, which: int | None) -> list[int] | None:
        """The sessions acta number ``which`` (None: the last one) holds; None if there is no such acta."""
        try:
            return pick_sessions(self._table.store, room_id, which)
        except (NoSuchActa, ValueError):
            return None

    def acta_sessions(self, room_id: str, numbers: list[int]) -> list[Session]:
        """Those sessions read to be rendered (``render_acta``)."""
        return sessions_of(self._table.store, self.renderer, room_id, numbers)

    def acta_style_hash(self) -> str:
        """The CSP source that allows the acta page's one inline style."""
        return style_hash(style(self.renderer))


def _shown_roll(row: dict[str, Any]) -> dict[str, Any]:
    return {**record_row(row), "text": json.loads(row["message"])["body"]}
