"""The bot without the power its room's mode needs, on a real Synapse (issue 29, item 10): one WARNING in
the log per room and per change of what it lacks, beside the room's own notice."""

from __future__ import annotations

import logging

from tests.matrix.conftest import redaction_of, reply_to
from tests.matrix.test_matrix_protocol import open_table


async def set_bot_power(cast, room: str, level: int) -> None:
    gm, bot_id = cast.gm, cast.bot_user.user_id
    current = await gm.client.room_get_state_event(room, "m.room.power_levels")
    content = dict(current.content)
    content["users"] = {**content.get("users", {}), bot_id: level}
    await gm.client.room_put_state(room, "m.room.power_levels", content)


async def test_a_bot_without_power_to_redact_warns_the_log_once_per_change(cast, run_bot, caplog) -> None:
    gm, ana, bot_id = cast.gm, cast.players[0], cast.bot_user.user_id
    caplog.set_level(logging.INFO)

    def warnings() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "enforcement" in r.getMessage()]

    async with run_bot(cast.config(enforcement="redact")):
        room = await open_table(cast, power=0, players=1)
        await gm.say(room, "----------")
        await gm.wait_for(room, lambda ev: ev.get("type") == "m.reaction", what="the lock's reaction")
        said = await ana.say(room, "hola")
        await ana.wait_for(room, reply_to(said, bot_id), what="the lock's warning")
        await ana.say(room, "¿se me oye?")
        said = await gm.say(room, "!tiro d6")
        await gm.wait_for(room, reply_to(said, bot_id), what="a roll after the second offence")
        assert len(warnings()) == 1 and room in warnings()[0] and "take messages back" in warnings()[0], warnings()

        await set_bot_power(cast, room, 50)
        said = await ana.say(room, "ahora sí")
        await ana.wait_for(room, redaction_of(said), what="the redaction, with power")
        assert len(warnings()) == 1
        await set_bot_power(cast, room, 0)
        await ana.say(room, "y ahora no")
        await ana.wait_until(lambda: len(warnings()) == 2, what="the second warning, after the power went")
        assert room in warnings()[1]
