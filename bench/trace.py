"""One ``!tiro Disparar contra Orco`` traced from the Matrix event to the reply's Matrix content.

    python bench/trace.py

A Savage room (the GM is its creator, as on Matrix) is set up with the commands a GM types
(``!sistema savage``, ``!pj``, ``!ficha``, ``!pnj``), every event going in as sync JSON through
``bot/matrix/translate.py`` and ``Table.handle``. The same roll is made once untraced in a twin
room (templates compiled, lazy imports done), then traced with ``sys.setprofile`` in the first:
``translate`` -> ``Table.handle`` -> each ``Send`` turned into the content the Matrix outbox sends
(``Outbox.send``, with the network call replaced by keeping the content). No network, no server.

What is counted (Python functions only; C functions are not project code):

- **calls**: ``call`` events of a function whose file is under ``bot/``, ``systems/`` or
  ``templates/`` (the compiled templates' own functions; Jinja's internals are not counted),
  comprehensions and generator expressions included, a generator or coroutine resumed counted
  once (a frame already seen is a resumption, not a call);
- **crossing calls**: those of the calls whose caller is in another project file or outside the
  project; **distinct functions**: the project functions called at least once;
- **files**: the distinct project files those calls ran in;
- **returns to a file already left**: the file of the innermost project frame, followed through
  every call and return; each time it changes to a file it had been in before and left, one;
- **require_up**: calls of ``require_up`` (``bot/core/combat.py``);
- **roll JSON built**: calls of a roll outcome's ``as_json`` in ``systems/`` not made from another
  ``as_json`` (the dice inside an outcome are part of the one JSON).
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core.events import Action, Event, Send  # noqa: E402
from bot.core.store import Store  # noqa: E402
from bot.core.table import Table  # noqa: E402
from bot.games import GAMES  # noqa: E402
from bot.matrix.outbox import Outbox  # noqa: E402
from bot.matrix.power import RoomAuth  # noqa: E402
from bot.matrix.store import MatrixStore  # noqa: E402
from bot.matrix.translate import translate  # noqa: E402
from bot.metrics import Metrics  # noqa: E402

BOT = "@rolbot:bench"
GM = "@gm:bench"
PLAYER = "@bob:bench"
ROOMS = ("!traced:bench", "!warm:bench")
SETUP = [
    (GM, "!sistema savage"),
    (GM, f"!pj Kira {PLAYER}"),
    (GM, "!ficha Kira Agilidad d8, Astucia d6, Espíritu d6, Fuerza d6, Vigor d8, Disparar d8, Pelear d6, "
         "Parada 5, Dureza 6, Arma Rifle, Tipo de arma distancia, Daño 2d8"),
    (GM, "!pnj Orco"),
    (GM, "!ficha Orco Parada 7, Dureza 7, Comodín no, Pelear d8"),
]
ROLL = (PLAYER, "!tiro Disparar contra Orco")
PROJECT = tuple(str(ROOT / d) + "/" for d in ("bot", "systems", "templates"))


def sync_event(n: int, room: str, sender: str, text: str) -> dict[str, Any]:
    """A timeline event as a sync response carries it."""
    return {"type": "m.room.message", "event_id": f"${room[1:4]}{n}", "sender": sender,
            "origin_server_ts": 1_700_000_000_000 + n,
            "content": {"msgtype": "m.text", "body": text}, "unsigned": {"age": 5}}


class _Session:
    user_id = BOT


class _KeptOutbox(Outbox):
    """The Matrix outbox with the homeserver call replaced by keeping what would be sent."""

    sent: list[tuple[str, dict[str, Any]]]

    async def room_send(self, room_id: str, event_type: str, content: dict[str, Any], tx: str | None,
                        invited: str | None = None) -> None:
        self.sent.append((room_id, content))


def make_outbox(store: Store, matrix_store: MatrixStore, table: Table, auth: RoomAuth) -> _KeptOutbox:
    async def auth_for(room_id: str) -> RoomAuth:
        return auth

    outbox = _KeptOutbox(_Session(), store, matrix_store, table.renderer, Metrics(),  # type: ignore[arg-type]
                         dict.fromkeys(ROOMS, auth), auth_for, lambda: False)
    outbox.sent = []
    return outbox


def one_roll(table: Table, outbox: _KeptOutbox, auth: RoomAuth, src: dict[str, Any], room: str) -> None:
    """The traced path: sync JSON to the core's event, the table's answer, the Matrix content."""
    event = translate(room, src, auth, BOT)
    assert isinstance(event, Event), event
    actions: list[Action] = table.handle(event, owner="matrix")
    for action in actions:
        if isinstance(action, Send):
            asyncio.run(outbox.send(action))


class Tracer:
    def __init__(self) -> None:
        self.calls = 0
        self.crossing = 0
        """Calls whose caller is in another project file, or outside the project."""
        self.where: list[str] = []
        """Where ``require_up`` and the outermost ``as_json`` were called from."""
        self.files: Counter[str] = Counter()
        self.functions: set[tuple[str, int]] = set()
        self.returns_to_left = 0
        self.require_up = 0
        self.roll_json = 0
        self._seen: set[FrameType] = set()
        self._stack: list[str] = []
        """The project file of each live project frame, innermost last."""
        self._visited: set[str] = set()
        self._current: str | None = None
        self._as_json_depth = 0

    def _moved(self) -> None:
        now = self._stack[-1] if self._stack else None
        if now is not None and now != self._current:
            if now in self._visited:
                self.returns_to_left += 1
            self._visited.add(now)
        if now is not None:
            self._current = now

    def __call__(self, frame: FrameType, what: str, arg: object) -> None:
        if what not in ("call", "return"):
            return
        filename = frame.f_code.co_filename
        if not filename.startswith(PROJECT):
            return
        name = frame.f_code.co_name
        if what == "call":
            if frame not in self._seen:
                self._seen.add(frame)
                self.calls += 1
                self.files[filename] += 1
                self.functions.add((filename, frame.f_code.co_firstlineno))
                if not self._stack or self._stack[-1] != filename:
                    self.crossing += 1
                if name == "require_up" and filename.endswith("bot/core/combat.py"):
                    self.require_up += 1
                    self.where.append(f"require_up <- {_caller(frame)}")
                if name == "as_json" and filename.startswith(PROJECT[1]) and not self._as_json_depth:
                    self.roll_json += 1
                    self.where.append(f"as_json <- {_caller(frame)}")
            if name == "as_json":
                self._as_json_depth += 1
            self._stack.append(filename)
        else:
            if name == "as_json":
                self._as_json_depth -= 1
            if self._stack:
                self._stack.pop()
        self._moved()


def _caller(frame: FrameType) -> str:
    back = frame.f_back
    if back is None:
        return "?"
    return f"{Path(back.f_code.co_filename).relative_to(ROOT)}:{back.f_lineno} {back.f_code.co_name}"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "trace.db"))
        table = Table(store, rng=random.Random(3), games=GAMES)
        auth = RoomAuth(creators={GM}, version="12", power={"users": {BOT: 100}},
                        members={BOT, GM, PLAYER})
        matrix_store = MatrixStore(store)
        outbox = make_outbox(store, matrix_store, table, auth)
        matrix_store.set_private_room(GM, "!dm-gm:bench")
        for room in ROOMS:
            for n, (sender, text) in enumerate(SETUP):
                event = translate(room, sync_event(n, room, sender, text), auth, BOT)
                table.handle(event, owner="matrix")  # type: ignore[arg-type]
        traced, warm = ROOMS
        one_roll(table, outbox, auth, sync_event(len(SETUP), warm, *ROLL), warm)
        outbox.sent.clear()
        src = sync_event(len(SETUP), traced, *ROLL)
        tracer = Tracer()
        sys.setprofile(tracer)
        try:
            one_roll(table, outbox, auth, src, traced)
        finally:
            sys.setprofile(None)
    print(f"traza: {ROLL[1]!r} (Savage, Orco PNJ), de JSON de Matrix al contenido que envía el outbox")
    print(f"mensajes enviados: {len(outbox.sent)} ({', '.join(room for room, _ in outbox.sent)})")
    print(f"llamadas a código del proyecto: {tracer.calls}")
    print(f"  de ellas desde otro fichero (o desde fuera del proyecto): {tracer.crossing}")
    print(f"  funciones distintas: {len(tracer.functions)}")
    print(f"ficheros distintos del proyecto: {len(tracer.files)}")
    print(f"vueltas a un fichero ya dejado: {tracer.returns_to_left}")
    print(f"require_up: {tracer.require_up}")
    print(f"JSON de la tirada construido: {tracer.roll_json}")
    for line in tracer.where:
        print(f"  {line}")
    print("llamadas por fichero:")
    for filename, count in sorted(tracer.files.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count:4d}  {Path(filename).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
