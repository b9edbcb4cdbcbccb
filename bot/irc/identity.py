"""Who is who on IRC: a nick (and its ``user@host``, its services account) as a stable user id.

A services account (IRCv3 ``account-tag``, ``extended-join``, WHOX) is the user id ``@account:irc``.
Without one, a person is ``@nick:user@host`` as first seen; the id follows their ``NICK`` changes, so
characters, turn and floor stay theirs, and it is kept across the bot's restarts while they keep their
nick and ``user@host`` (``docs/irc.md``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.irc.config import irc_account_id, irc_room_key
from bot.irc.store import IrcStore

MENTION = re.compile(r"(?<!\S)@([^\s@:!,]{1,30})(?!\S)")
"""``@nick`` in a command (``!pj Lyra @ana``, ``!master @ana``)."""


def fold(nick: str) -> str:
    """A nick as IRC compares them (``Ana`` and ``ana`` are one person)."""
    return irc_room_key(nick)


@dataclass
class Person:
    user_id: str
    nick: str
    mask: str
    """``user@host`` when first seen."""


class People:
    """The people the bot shares a channel with, by folded nick, saved in the IRC store."""

    def __init__(self, store: IrcStore) -> None:
        self.store = store
        self.known: dict[str, Person] = {}
        self._saved = store.people()

    def _save(self) -> None:
        self.store.save_people({key: [p.user_id, p.mask] for key, p in self.known.items()})

    def get(self, nick: str) -> Person | None:
        return self.known.get(fold(nick))

    def person(self, nick: str, user: str | None, host: str | None, account: str | None = None) -> Person:
        """Who ``nick`` is: their account, else the id they had when first seen (kept across nick
        changes and across the bot's restarts while they keep their nick and ``user@host``)."""
        key = fold(nick)
        mask = f"{user}@{host}" if user and host else ""
        known = self.known.get(key)
        if account:
            user_id = irc_account_id(account)
            if known is None or known.user_id != user_id:
                known = self.known[key] = Person(user_id, nick, mask or (known.mask if known else ""))
                self._save()
            return known
        if known is not None and (not mask or not known.mask or known.mask == mask):
            if mask and not known.mask:
                known.mask = mask
            return known
        saved = self._saved.get(key)
        if saved is not None and mask and saved[1] == mask and not saved[0].endswith(":irc"):
            user_id = saved[0]
        else:
            user_id = f"@{nick}:{mask}" if mask else f"@{nick}:?"
        taken = {p.user_id for k, p in self.known.items() if k != key}
        base, n = user_id, 2
        while user_id in taken:
            name, _, rest = base.partition(":")
            user_id, n = f"{name}~{n}:{rest}", n + 1
        person = self.known[key] = Person(user_id, nick, mask)
        self._save()
        return person

    def id_of(self, nick: str) -> str | None:
        person = self.get(nick)
        return person.user_id if person else None

    def nick_of(self, user_id: str) -> str | None:
        for person in self.known.values():
            if person.user_id == user_id:
                return person.nick
        return None

    def rename(self, old: str, new: str) -> None:
        person = self.known.pop(fold(old), None)
        if person is not None:
            person.nick = new
            self.known[fold(new)] = person
            self._save()

    def forget(self, nick: str) -> None:
        """``nick`` shares no channel with the bot any more."""
        if self.known.pop(fold(nick), None) is not None:
            self._save()

    def ids_for_mentions(self, text: str) -> str:
        """Each ``@nick`` of a command as that person's id (a nick nobody has stays as written)."""
        return MENTION.sub(lambda m: self.id_of(m[1]) or m[0], text)

    def nicks_for_ids(self, line: str) -> str:
        """User ids of people in the channels shown as their nicks (what IRC users know each other by)."""
        if "@" not in line:
            return line
        for person in sorted(self.known.values(), key=lambda p: -len(p.user_id)):
            if person.user_id in line:
                line = line.replace(person.user_id, person.nick)
        return line
