"""The acta and the table page: recording, its sessions, their links and the page's address."""

from __future__ import annotations

import re
import secrets

from bot.core import acta
from bot.core import words_es as vocab
from bot.core.args import Arg, Either, Key, Opt, Parsed, Rest
from bot.core.commands import CommandGroup
from bot.core.context import Context
from systems.refusal import Refusal

COMMANDS = CommandGroup()
NEW = Key(vocab.NEW)
_SESSION_NUMBER = re.compile(r"[0-9]{1,6}")
PAGE_TOKEN_BYTES = 24
"""The table page's token: 192 random bits."""


ON, OFF, DELETE = Key(vocab.ON, gm=True), Key(vocab.OFF, gm=True), Key(vocab.DELETE, gm=True)
ACTA = Either((Opt(Arg("N")),), (ON, Opt(Rest())), (OFF, Opt(Rest())), (DELETE, Arg("N|todo")))
"""The links (of session N), recording on or off (words after it ignored), erasing sessions."""


@COMMANDS.takes("acta", "log", spec=ACTA)
def acta_command(ctx: Context, got: Parsed) -> None:
    record = ctx.room.acta
    if got.has(ON):
        record.on = True
        ctx.announce("acta_on")
    elif got.has(OFF):
        record.on, record.open = False, False
        ctx.announce("acta_off")
    elif got.has(DELETE):
        _erase_sessions(ctx, got.text("N|todo").lower().split())
    elif not got.text("N") or _SESSION_NUMBER.fullmatch(got.text("N")):
        _acta_links(ctx, int(got.text("N")) if got.text("N") else None)
    else:
        raise ctx.usage("acta")


def _erase_sessions(ctx: Context, words: list[str]) -> None:
    every = len(words) == 1 and words[0] in vocab.ALL
    if not every and (len(words) > 20 or not all(_SESSION_NUMBER.fullmatch(w) for w in words)):
        raise ctx.usage("acta")
    sessions = None if every else tuple(sorted({int(w) for w in words}))
    _known_sessions(ctx, sessions or ())
    acta.erase(ctx, sessions)
    ctx.reply("acta_erased", sessions=sessions)


def _known_sessions(ctx: Context, asked: tuple[int, ...]) -> None:
    """Refuse when the acta holds no session, or not every one ``asked`` (an empty or erased
    session has no document)."""
    known = ctx.recorded_sessions()
    if not known:
        raise Refusal("acta_empty", on=ctx.room.acta.on)
    missing = [n for n in asked if n not in known]
    if missing:
        raise Refusal("acta_no_session", missing=missing, known=known)


def _acta_links(ctx: Context, session: int | None) -> None:
    _known_sessions(ctx, () if session is None else (session,))
    if ctx.room.page_token is None and not ctx.is_gm():
        raise Refusal("acta_no_page")
    ctx.reply("acta_links", url=_page_url(ctx), session=session, on=ctx.room.acta.on)


def _page_url(ctx: Context, renew: bool = False) -> str:
    """The room's table page address (a new token if it has none or ``renew``: only the GM's commands
    ask for it then); a refusal without ``[web] public_url``."""
    base = ctx.settings.public_url
    if not base:
        raise Refusal("no_public_url")
    if renew or ctx.room.page_token is None:
        ctx.room.page_token = secrets.token_urlsafe(PAGE_TOKEN_BYTES)
    return f"{base.rstrip('/')}/mesa/{ctx.room.page_token}"


@COMMANDS.takes("mesa", "table", spec=(Opt(NEW),), gm_only=True)
def table_page_command(ctx: Context, got: Parsed) -> None:
    renew = got.has(NEW)
    ctx.reply("table_page_link", url=_page_url(ctx, renew=renew), renewed=renew)


def _recording(ctx: Context) -> None:
    """Sessions are of a recording acta, or of a game that starts them (its bennies): without either,
    that comes before the usage."""
    if not ctx.room.acta.on and ctx.game.session_start is None:
        raise Refusal("acta_empty", on=False)


SESSION = Key((*vocab.END, *vocab.NEW), label="fin|nueva")


@COMMANDS.takes("sesion", "session", spec=(Opt(SESSION),), gm_only=True, before=_recording)
def session_command(ctx: Context, got: Parsed) -> None:
    """A session of the acta (when it records) and of the game (``Game.session_start``)."""
    record = ctx.room.acta
    if got.text(SESSION.shown) in vocab.END:
        if not record.on:
            raise Refusal("acta_empty", on=False)
        if not record.open:
            raise Refusal("session_not_open")
        record.open = False
        ctx.announce("session_ended", session=record.session)
        return
    if record.on:
        record.session += 1
        record.open, record.last_ts = True, ctx.event.ts
        ctx.announce("session_started", session=record.session)
    if ctx.game.session_start is not None:
        ctx.game.session_start(ctx)
