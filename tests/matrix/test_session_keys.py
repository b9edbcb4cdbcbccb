"""The key upkeep against nio's own rule: a key query, upload or claim with nothing left to do raises."""

from __future__ import annotations

import asyncio

from nio.exceptions import LocalProtocolError

from bot.config import parse_config
from bot.matrix.session import Session
from bot.metrics import Metrics

CONFIG = {"matrix": {"homeserver": "http://127.0.0.1:8008", "user_id": "@rolbot:localhost", "password": "x"},
          "storage": {"path": "/tmp/rolbot-test-keys"}}


class RacingClient:
    """nio's client as a second task leaves it: users to query when the upkeep looks, none by the time its
    request runs (the other task's query answered first)."""

    olm = object()
    should_upload_keys = False
    should_claim_keys = False
    outgoing_to_device_messages: tuple[object, ...] = ()

    def __init__(self) -> None:
        self.pending = True
        self.queries = 0

    @property
    def should_query_keys(self) -> bool:
        return self.pending

    async def keys_query(self) -> object:
        if not self.pending:
            raise LocalProtocolError("No key query required.")
        self.queries += 1
        self.pending = False
        return object()


async def test_the_upkeep_and_a_send_querying_keys_at_once_make_one_query_and_raise_nothing() -> None:
    """Seen in ``tests/matrix/test_faults.py``: after a restart with replies pending for an encrypted room,
    the outbox and the sync loop's upkeep both asked for the keys; nio raised «No key query required.»
    and the bot died."""
    session = Session(parse_config(CONFIG, env={}), Metrics(), lambda: False)
    client = RacingClient()
    session._client = client  # type: ignore[assignment]
    await asyncio.gather(session.crypto_upkeep(), session.query_keys(), session.query_keys())
    assert client.queries == 1 and not client.pending


async def test_a_query_made_meanwhile_by_nio_itself_leaves_the_upkeeps_request_nothing_to_do() -> None:
    """The upkeep saw users to query; before its request ran, another task queried them (as nio does before
    sharing a room key): the request is skipped instead of raising."""
    session = Session(parse_config(CONFIG, env={}), Metrics(), lambda: False)
    client = RacingClient()
    session._client = client  # type: ignore[assignment]
    await asyncio.gather(session.crypto_upkeep(), client.keys_query())
    assert client.queries == 1
