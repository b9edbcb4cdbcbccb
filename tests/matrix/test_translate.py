"""Sync event JSON to ``Event`` (``bot.matrix.translate``), on JSON fixtures and arbitrary JSON (no homeserver)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.events import Event
from bot.matrix.bot import sync_filter
from bot.matrix.power import RoomAuth
from bot.matrix.translate import FUTURE_SLACK_MS, Malformed, is_own_join, translate

BOT = "@bot:s"
NOW = 1_800_000_000_000
CASES = json.loads((Path(__file__).parent / "fixtures" / "events.json").read_text(encoding="utf-8"))


def auth() -> RoomAuth:
    return RoomAuth(creators={"@gm:s"}, version="12", power={"users": {BOT: 100}})


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_fixture(case):
    got = translate("!r:s", case["event"], auth(), BOT)
    expect = case["expect"]
    if expect is None:
        assert got is None
    elif expect == "unreadable":
        assert isinstance(got, Malformed) and got.event is None
    elif expect in ("malformed", "malformed-edit"):
        # Logged and counted by the caller; the table still sees it as writing, never as a command.
        assert isinstance(got, Malformed) and got.event is not None and got.reason
        assert got.event.kind == "other" and got.event.text == "" and got.event_id == "$e"
        assert got.event.edit == (expect == "malformed-edit")
    else:
        assert isinstance(got, Event)
        assert (got.kind, got.text, got.edit) == (expect["kind"], expect["text"], expect["edit"])
        assert got.target == expect.get("target", "")
        assert got.sender == "@ana:s" and got.event_id == "$e" and got.room_id == "!r:s"
        assert got.ts == 1700000000000 and got.bot_can_redact and got.bot_can_mute and not got.sender_is_admin


def test_gm_is_admin_and_powerless_bot_is_told():
    event = translate("!r:s", {"type": "m.room.message", "sender": "@gm:s", "event_id": "$1",
                               "content": {"msgtype": "m.text", "body": "-----"}}, RoomAuth({"@gm:s"}, "12"), BOT)
    assert isinstance(event, Event) and event.sender_is_admin
    assert not event.bot_can_redact and not event.bot_can_mute


def test_sync_filter_lets_every_timeline_event_through():
    timeline = sync_filter(100)["room"]["timeline"]
    assert timeline == {"limit": 100}


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
KEYS = ["msgtype", "body", "m.relates_to", "rel_type", "event_id", "key", "m.new_content", "m.in_reply_to",
        "format", "formatted_body", "url", "membership", "state_key", "unsigned", "redacted_because"]
json_values = st.recursive(
    json_scalars | st.sampled_from(["m.text", "m.emote", "m.notice", "m.image", "m.replace", "m.annotation",
                                    "!tiro 1d6", "> x\n\n!tiro d6", "join", "@bot:s"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=6),
    max_leaves=25)
TYPES = st.sampled_from(["m.room.message", "m.sticker", "m.reaction", "m.poll.start", "m.room.encrypted",
                         "org.matrix.msc3381.poll.response", "m.room.redaction", "m.room.member"]) | json_scalars


def check(src: object) -> None:
    got = translate("!r:s", src, auth(), BOT)
    assert got is None or isinstance(got, (Event, Malformed))
    if isinstance(got, Malformed) and got.event is not None:
        assert got.event.kind == "other"
    is_own_join(src, BOT)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(etype=TYPES, content=json_values)
def test_arbitrary_content_never_raises(etype, content):
    check({"type": etype, "sender": "@ana:s", "event_id": "$e", "origin_server_ts": 1, "content": content})


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event=st.dictionaries(st.sampled_from(["type", "sender", "event_id", "origin_server_ts", "content",
                                              "state_key", "unsigned", "redacts"]), json_values | TYPES, max_size=8)
       | json_values)
def test_arbitrary_top_level_event_never_raises(event):
    check(event)


@pytest.mark.parametrize(("sent", "kept"), [
    (2**53 - 1, NOW + FUTURE_SLACK_MS), (NOW + FUTURE_SLACK_MS + 1, NOW + FUTURE_SLACK_MS),
    (NOW + 5, NOW + 5), (1_700_000_000_000, 1_700_000_000_000), (-1, 0), (2**64, NOW + FUTURE_SLACK_MS),
    (1.5e15, 0), (True, 0), ("1700000000000", 0),
])
def test_the_server_timestamp_is_kept_within_sane_bounds(sent: object, kept: int) -> None:
    """A room member's server may stamp any number: a far future one would crash date formatting and
    hold the room's acta session open forever."""
    src = {"type": "m.room.message", "sender": "@ana:s", "event_id": "$1", "origin_server_ts": sent,
           "content": {"msgtype": "m.text", "body": "hola"}}
    event = translate("!r:s", src, auth(), BOT, now_ms=NOW)
    assert isinstance(event, Event) and event.ts == kept


@pytest.mark.parametrize(("relates", "thread"), [
    ({"rel_type": "m.thread", "event_id": "$raiz", "is_falling_back": True, "m.in_reply_to": {"event_id": "$raiz"}},
     "$raiz"),
    ({"rel_type": "m.thread", "event_id": "$raiz"}, "$raiz"),
    ({"rel_type": "m.thread", "event_id": 7}, ""),
    ({"rel_type": "m.thread", "event_id": ["$raiz"]}, ""),
    ({"rel_type": "m.thread", "event_id": "raiz"}, ""),
    ({"rel_type": "m.reference", "event_id": "$raiz"}, ""),
    ({"m.in_reply_to": {"event_id": "$raiz"}}, ""),
])
def test_a_message_in_a_thread_carries_its_root(relates: dict, thread: str) -> None:
    """Issue 29 item 7: the root of an ``m.thread`` relation, read defensively (any other shape: the main timeline)."""
    event = {"type": "m.room.message", "sender": "@ana:s", "event_id": "$e", "origin_server_ts": 1700000000000,
             "content": {"msgtype": "m.text", "body": "!tiro 1d6", "m.relates_to": relates}}
    got = translate("!r:s", event, auth(), BOT)
    assert isinstance(got, Event) and got.text == "!tiro 1d6" and got.thread == thread
