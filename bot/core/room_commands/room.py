"""The room's own commands: help, the game system, the enforcement mode, GMs, rule cards, undo."""

from __future__ import annotations

import re

from bot.core import floor, moderation, sheets, undo
from bot.core import words_es as vocab
from bot.core.args import Arg, Either, Key, Opt, Parsed, User
from bot.core.commands import CommandGroup
from bot.core.context import Context, FoundCommand
from bot.core.render import Renderer
from bot.core.room_commands.characters import _USER_ID
from bot.core.rulebook import Rulebook
from bot.core.state import ENFORCEMENT_MODES, MAX_NAME, name_key
from systems.refusal import Refusal

COMMANDS = CommandGroup()
HELP_LINES = 2
"""Lines of the topics that name a command, shown by ``!ayuda COMANDO``."""
HELP_TOPIC = "topic_"
"""``!ayuda TEMA``: message kinds ``topic_TEMA`` of the core and ``<game>/topic_TEMA`` of the room's game."""
_COMMAND_MARK = re.compile(r"!([^\W_]+)")


def help_topics(renderer: Renderer, game: str) -> dict[str, str]:
    """The ``!ayuda`` topics of a room playing ``game``: name -> message kind. A game's topic replaces
    the core's of the same name."""
    topics = {kind.removeprefix(HELP_TOPIC): kind for kind in renderer.kinds(HELP_TOPIC)}
    prefix = f"{game}/{HELP_TOPIC}"
    topics.update({kind.removeprefix(prefix): kind for kind in renderer.kinds(prefix)})
    return dict(sorted(topics.items()))


@COMMANDS.takes("ayuda", "help", spec=(Opt(Arg("TEMA|COMANDO")),), question=True)
def help_command(ctx: Context, got: Parsed) -> None:
    """The common commands and the topics; one topic; or one command, with what the topics say of it."""
    topics = help_topics(ctx.renderer, ctx.system_key)
    asked = name_key(got.text("TEMA|COMANDO").lstrip("!/"))[:MAX_NAME]
    if not asked:
        ctx.reply("help", system=ctx.system_key, topics=list(topics),
                  game_commands=[command.names[0] for command in ctx.game.commands])
    elif asked in topics:
        ctx.reply(topics[asked], system=ctx.system_key)
    elif (command := ctx.find_command(asked)) is not None:
        said = sorted(_lines_naming(ctx, command, topics))
        ctx.reply("help_command", command=command, lines=[line for _, _, line in said[:HELP_LINES]],
                  topics=list(dict.fromkeys(topic for _, topic, _ in said)) or list(topics))
    else:
        raise Refusal("help_unknown", asked=got.text("TEMA|COMANDO")[:MAX_NAME], topics=list(topics))


def _lines_naming(ctx: Context, command: FoundCommand, topics: dict[str, str]) -> list[tuple[int, str, str]]:
    """The topics' lines that name ``command`` (``!name``), each with where in it the name comes first
    (a line that starts with it explains it) and its topic."""
    keys = {name_key(name) for name in command.names}
    found = []
    for topic, kind in topics.items():
        for line in ctx.renderer.text(kind, system=ctx.system_key).split("\n")[1:]:
            marks = [m.start() for m in _COMMAND_MARK.finditer(name_key(line)) if m[1] in keys]
            if marks:
                found.append((marks[0], topic, line))
    return found


@COMMANDS.takes("sistema", "system", spec=(Arg("CLAVE"),), gm_only=True)
def system_command(ctx: Context, got: Parsed) -> None:
    key = got.text("CLAVE").lower()
    if key not in ctx.games:
        raise Refusal("dice_error", code="unknown_system", params={"key": key[:30], "known": ctx.games.keys()})
    ctx.room.system = key
    sheets.play_in(ctx.room, ctx.game, ctx.games)
    moderation.acknowledge(ctx, "system_set", system=ctx.system)


@COMMANDS.takes("modo", "mode", spec=(Arg("warn|redact|mute"),), gm_only=True)
def mode_command(ctx: Context, got: Parsed) -> None:
    mode = got.text("warn|redact|mute").lower()
    if mode not in ENFORCEMENT_MODES:
        raise Refusal("bad_mode", mode=mode[:20], modes=ENFORCEMENT_MODES)
    ctx.room.enforcement = mode
    ctx.room.warned_no_power = False
    moderation.acknowledge(ctx, "mode_set", mode=mode)


REMOVE = Key(vocab.REMOVE, gm=True)
ADMIN_REASONS = ("creator", "power", "operator", "admin")
"""Why the transport shows someone as the room's admin (``RoomState.admins``), as ``gm_why`` words it."""


def gm_reasons(ctx: Context) -> dict[str, list[str]]:
    """Each GM of the room and why they are one (``config``, ``master``, or why the transport shows them
    as its admin), in that order."""
    reasons: dict[str, list[str]] = {}
    for user in ctx.settings.gms:
        reasons.setdefault(user, []).append("config")
    for user in ctx.room.gms:
        reasons.setdefault(user, []).append("master")
    for user, why in ctx.room.admins.items():
        reasons.setdefault(user, []).append(why if why in ADMIN_REASONS else "admin")
    return reasons


@COMMANDS.takes("master", "gm", spec=Either((Opt(User("@usuario")),), (REMOVE, User("@usuario"))))
def gm_command(ctx: Context, got: Parsed) -> None:
    """``!master``: the GMs and why; ``!master @x``: one more (a GM's); ``!master quitar @x``: one fewer,
    of those ``!master`` added (the others are GMs by the config or the room's own powers)."""
    user = got.text("@usuario")
    if not user:
        ctx.reply("gm_list", gms=[(gm, [_why(ctx, why) for why in whys]) for gm, whys in gm_reasons(ctx).items()])
        return
    if not ctx.is_gm():
        raise Refusal("gm_only", command="master @usuario")
    if not _USER_ID.match(user):
        raise Refusal("bad_user", user=user[:60])
    if got.has(REMOVE):
        _remove_gm(ctx, user)
        return
    if user not in ctx.room.gms:
        ctx.room.gms.append(user)
        floor.refresh_mute(ctx)
    moderation.acknowledge(ctx, "gm_added", user=user)


def _why(ctx: Context, why: str) -> str:
    return ctx.renderer.text("gm_why", why=why)


def _remove_gm(ctx: Context, user: str) -> None:
    """Only a GM added with ``!master`` is taken back; the others are told why they cannot be."""
    whys = gm_reasons(ctx).get(user, [])
    if "master" not in whys:
        if not whys:
            raise Refusal("gm_not_gm", user=user)
        raise Refusal("gm_not_removable", user=user, why=whys[0], reason=_why(ctx, whys[0]))
    ctx.room.gms.remove(user)
    floor.refresh_mute(ctx)
    still = [_why(ctx, why) for why in whys if why != "master"]
    if still:
        ctx.reply("gm_removed", user=user, still=still)
    else:
        moderation.acknowledge(ctx, "gm_removed", user=user, still=still)


@COMMANDS.takes("regla", "rule", spec=(Arg("TEMA"),), question=True)
def rule_command(ctx: Context, got: Parsed) -> None:
    topic = got.text("TEMA")
    cards = Rulebook.of(ctx.games).search(ctx.system_key, topic[:200])
    ctx.reply("rule_cards", query=topic[:60], cards=cards)


LIST_STEPS = Key(("?",))
"""``!deshacer ?``: the last steps, listed instead of undone."""


@COMMANDS.takes("deshacer", "undo", spec=(Opt(LIST_STEPS),), gm_only=True)
def undo_command(ctx: Context, got: Parsed) -> None:
    """The last command that changed the play (anyone's), back through the last ``UNDO_DEPTH``; ``?``
    lists the last steps instead. Right after a refused command of the sender's, the step is named first
    and a second ``!deshacer`` undoes it."""
    if ctx.store is None:
        raise Refusal("nothing_to_undo", limit=undo.UNDO_DEPTH)
    if got.has(LIST_STEPS):
        ctx.whisper(ctx.sender, "undo_steps", steps=ctx.store.undo.recent(ctx.event.room_id, undo.LISTED),
                    limit=undo.UNDO_DEPTH)
        return
    step = ctx.store.undo.last(ctx.event.room_id)
    if step is None:
        raise Refusal("nothing_to_undo", limit=undo.UNDO_DEPTH)
    refused = ctx.store.undo.refusal(ctx.event.room_id, ctx.sender)
    if refused is not None:
        ctx.whisper(ctx.sender, "undo_confirm", refused=refused, command=step.label, unchanged=not step.parts)
        return
    undo.take_back(ctx, step)


@COMMANDS.takes("rehacer", "redo", spec=(), gm_only=True)
def redo_command(ctx: Context, got: Parsed) -> None:
    """What the last ``!deshacer`` undid, put back, until a new command leaves a step."""
    undone = ctx.store.undo.redoable(ctx.event.room_id) if ctx.store is not None else None
    if undone is None:
        raise Refusal("nothing_to_redo")
    undo.redo(ctx, *undone)
