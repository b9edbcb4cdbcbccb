"""What one event leaves pending is one unit of work: a refused command rolls all of it back to the
mark taken before it (its answers, acta records, rolls, reveals, undo steps and the room's state)."""

from __future__ import annotations

import random

from bot.core import acta, replies
from bot.core.commands import CommandGroup
from bot.core.events import Event
from bot.core.records import UndoStep
from bot.core.render import Message
from bot.core.state import Character
from bot.core.store import Store
from bot.core.table import Table, run
from bot.games import GAMES
from systems.base import roll_dice
from systems.refusal import Refusal

GROUP = CommandGroup()


@GROUP.takes("todo", spec=[])
def leave_everything_then_refuse(ctx, got) -> None:  # type: ignore[no-untyped-def]
    ctx.room.characters["kira"] = Character("Kira")
    ctx.room.acta.on = True
    acta.record(ctx, "narration", "", "Llueve.")
    ctx.reply("combat_ended", rounds=1)
    replies.record_roll(ctx, roll_dice("1d6", random.Random(1)), {"total": 3}, "Kira", "", (), False, Message("3", "3"))
    ctx.work.reveals.append("$old/r0")
    ctx.work.undoable.append(UndoStep("$old", "!todo", ctx.room.to_json(), []))
    ctx.work.undone.append("$older")
    raise Refusal("no_combat")


def test_a_refusal_rolls_the_whole_unit_of_work_back_to_its_mark() -> None:
    table = Table(Store(), games=GAMES)
    ctx = table.context_for(Event("!r:local", "@gm:local", "!todo", "$1"), table.room("!r:local"))
    ctx.reply("gm_removed", user="@ana:local", still=[])
    before = ctx.room.to_json()
    command = GROUP.find("todo")
    assert command is not None
    run(ctx, command, "")
    work = ctx.work
    assert [a.template for a in work.actions] == ["gm_removed", "no_combat"]
    assert (work.records, work.rolls, work.reveals, work.undoable, work.undone) == ([], [], [], [], [])
    assert ctx.room.to_json() == before
