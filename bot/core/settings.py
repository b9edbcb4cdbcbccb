"""Room settings from the config (or the console's flags): defaults plus per-room overrides."""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class RoomSettings:
    system: str | None = None
    """None: the first game of the registry."""
    gms: tuple[str, ...] = ()
    enforcement: str = "redact"
    ooc_in_locks: bool = False
    public_url: str | None = None
    """``[web] public_url``, the same for every room: where links to the table page and the acta point."""


@dataclass(frozen=True)
class TableSettings:
    defaults: RoomSettings = field(default_factory=RoomSettings)
    rooms: dict[str, dict] = field(default_factory=dict)
    """Per-room overrides: room id -> {field: value} over ``defaults``."""

    def for_room(self, room_id: str) -> RoomSettings:
        override = self.rooms.get(room_id)
        if not override:
            return self.defaults
        if "gms" in override:
            override = {**override, "gms": (*self.defaults.gms, *override["gms"])}
        return replace(self.defaults, **override)
