"""``!pantalla`` (``!screen``): the GM's private screen link (the page is ``bot/screen/``)."""

from __future__ import annotations

import secrets

from bot.core import words_es as vocab
from bot.core.args import Key, Opt, Parsed
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.room_commands.acta import PAGE_TOKEN_BYTES

COMMANDS = CommandGroup()
NEW = Key(vocab.NEW)
SCREEN_PATH = "/master/"


@COMMANDS.takes("pantalla", "screen", spec=(Opt(NEW),), gm_only=True)
def screen_command(ctx: Context, got: Parsed) -> None:
    """The link goes to the GM alone; the room only hears that it was sent. The same link again on a
    repeat, a new one (the old one dead) with ``nueva``."""
    base = ctx.settings.public_url
    if not base:
        ctx.whisper(ctx.sender, "screen_no_public_url")
    else:
        renew = got.has(NEW)
        token = None if renew or ctx.store is None else ctx.store.screen_links.token(ctx.event.room_id, ctx.sender)
        if token is None:
            token = secrets.token_urlsafe(PAGE_TOKEN_BYTES)
            ctx.work.screen_links.append((ctx.sender, token))
        ctx.whisper(ctx.sender, "screen_link", url=f"{base.rstrip('/')}{SCREEN_PATH}{token}", renewed=renew)
    ctx.reply("screen_sent")
