"""``bot.matrix.power`` on plain power-level dicts (no homeserver)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.matrix.power import INFINITE, CannotMute, RoomAuth, as_level, locked_power_levels


def create(sender: str, version: str = "12", **content: object) -> dict:
    return {"type": "m.room.create", "state_key": "", "sender": sender,
            "content": {"room_version": version, **content}}


def power(**content: object) -> dict:
    return {"type": "m.room.power_levels", "state_key": "", "sender": "@gm:s", "content": content}


def test_locked_power_levels_keep_players_below_and_speakers_above():
    base = {"users": {"@bot:s": 100, "@mod:s": 50, "@ana:s": 10, "@pablo:s": 10}, "users_default": 0,
            "events_default": 0, "events": {"m.room.message": 0, "m.reaction": 0}, "state_default": 50}
    auth = RoomAuth(creators={"@gm:s"}, version="12", power=base)
    new = locked_power_levels(base, auth, "@bot:s", ("@gm:s", "@ana:s"))
    ed = new["events_default"]
    assert ed == 11  # above every player; a moderator (50) counts as a GM and may still post
    assert new["events"]["m.room.message"] == ed and new["events"]["m.reaction"] == ed
    assert new["users"]["@ana:s"] == ed and new["users"]["@pablo:s"] == 10 and new["users"]["@mod:s"] == 50
    assert "@gm:s" not in new["users"]  # room v12 creators must not be listed
    assert base["users"]["@ana:s"] == 10  # the saved content is untouched
    assert auth.is_admin("@gm:s") and auth.is_admin("@mod:s") and not auth.is_admin("@ana:s")
    assert auth.can_mute("@bot:s") and auth.can_redact("@bot:s") and not auth.can_redact("@ana:s")


def test_creators_by_room_version():
    auth = RoomAuth()
    auth.apply(create("@gm:s", "12", additional_creators=["@co:s", 7]))
    auth.apply(power(users={"@bot:s": 100}))
    assert auth.creators == {"@gm:s", "@co:s"}
    assert auth.level("@gm:s") == INFINITE and auth.level("@co:s") == INFINITE
    old = RoomAuth()
    old.apply(create("@gm:s", "10", creator="@gm:s"))
    assert old.level("@gm:s") == 100  # no power levels yet: the creator has 100
    old.apply(power(users={"@gm:s": 100, "@bot:s": 50}))
    assert old.level("@gm:s") == 100 and old.is_admin("@gm:s")


def test_string_levels_of_old_rooms_count_and_junk_counts_as_absent():
    auth = RoomAuth(version="5", power={"users": {"@bot:s": "100", "@ana:s": "mucho", "@bea:s": True},
                                         "users_default": "5", "redact": [50]})
    assert auth.level("@bot:s") == 100
    assert auth.level("@ana:s") == 5 and auth.level("@bea:s") == 5
    assert auth.can_redact("@bot:s") and not auth.can_redact("@ana:s")
    assert as_level("-3", 0) == -3 and as_level("9" * 40, 7) == 7 and as_level(None, 4) == 4


def test_too_low_to_mute():
    base = {"users": {"@bot:s": 20}, "users_default": 20}
    auth = RoomAuth(version="12", power=base)
    with pytest.raises(CannotMute):
        locked_power_levels(base, auth, "@bot:s", ())
    assert not auth.can_mute("@bot:s")


def test_malformed_state_events_are_ignored():
    auth = RoomAuth()
    auth.apply(power(users={"@bot:s": 100}))
    for junk in ("x", [], None, {"type": "m.room.power_levels", "state_key": "", "content": "x"},
                 {"type": "m.room.power_levels", "state_key": 3, "content": {}},
                 {"type": "m.room.create", "state_key": "", "sender": ["@a:s"], "content": {"room_version": 12}}):
        auth.apply(junk)
    assert auth.level("@bot:s") == 100 and auth.creators == set() and auth.version == "1"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["users", "users_default", "events", "events_default", "state_default", "redact",
                         "m.room.power_levels", "m.room.message", "@bot:s", "@ana:s", "room_version",
                         "additional_creators", "creator"]) | st.text(max_size=6), inner, max_size=5),
    max_leaves=20)


@settings(max_examples=400, deadline=None)
@given(etype=st.sampled_from(["m.room.power_levels", "m.room.create"]), content=json_values,
       sender=json_values, speakers=st.lists(st.sampled_from(["@ana:s", "@gm:s", "@bot:s"]), max_size=3))
def test_any_state_content_never_raises(etype, content, sender, speakers):
    auth = RoomAuth()
    auth.apply({"type": etype, "state_key": "", "sender": sender, "content": content})
    for user in ("@bot:s", "@ana:s"):
        assert isinstance(auth.level(user), int)
        auth.is_admin(user)
        auth.can_redact(user)
        if auth.can_mute(user):
            new = locked_power_levels(auth.power, auth, user, tuple(speakers))
            assert new["events_default"] > as_level(auth.power.get("users_default"), 0)
