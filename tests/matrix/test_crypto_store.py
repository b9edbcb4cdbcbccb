"""The crypto store's pickle key (issue 19, item 3): nio's stores open with the fixed passphrase
``DEFAULT_KEY`` unless told otherwise, so a copy of the file was the bot's device. rolbot keeps a
random key of its own beside the store (0600) and re-encrypts a store made with nio's default.
No homeserver needed: these are nio's own store and Olm objects."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from nio.crypto import InboundGroupSession, OlmAccount, OutboundGroupSession, OutboundSession
from nio.store import DefaultStore

from bot.core.errors import StartupError
from bot.matrix.session import NIO_DEFAULT_KEY, PICKLE_KEY_FILE, CryptoStore, load_pickle_key

USER, DEVICE = "@rolbot:localhost", "DISPOSITIVO"


def store_as_nio_made_it(path: Path) -> tuple[dict[str, str], str, str]:
    """A crypto store written under nio's default key, as rolbot wrote them before: the account,
    an Olm session and a Megolm session. Their ids, to find them again."""
    store = DefaultStore(USER, DEVICE, str(path), NIO_DEFAULT_KEY)
    account, other = OlmAccount(), OlmAccount()
    store.save_account(account)
    other.generate_one_time_keys(1)
    otk = next(iter(other.one_time_keys["curve25519"].values()))
    olm = OutboundSession(account, other.identity_keys["curve25519"], otk)
    store.save_session(other.identity_keys["curve25519"], olm)
    group = InboundGroupSession(OutboundGroupSession().session_key, account.identity_keys["ed25519"],
                                account.identity_keys["curve25519"], "!mesa:localhost")
    store.save_inbound_group_session(group)
    store.database.close()
    return account.identity_keys, olm.id, group.id


def pickles(path: Path) -> list[tuple[bytes, bool]]:
    db = sqlite3.connect(path / f"{USER}_{DEVICE}.db")
    rows = [(bytes(a, "ascii") if isinstance(a, str) else a, bool(s))
            for a, s in db.execute("SELECT account, shared FROM accounts")]
    db.close()
    return rows


def test_a_new_store_gets_a_random_owner_only_key(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    key = load_pickle_key(str(first))
    assert key != NIO_DEFAULT_KEY and len(key) >= 43
    assert key != load_pickle_key(str(second))
    assert load_pickle_key(str(first)) == key  # kept, not made again
    assert (first / PICKLE_KEY_FILE).stat().st_mode & 0o777 == 0o600
    store = CryptoStore(USER, DEVICE, str(first), key)
    store.save_account(OlmAccount())
    store.database.close()
    (account, shared), = pickles(first)
    with pytest.raises(ValueError):
        OlmAccount.from_pickle(account, NIO_DEFAULT_KEY, shared)
    OlmAccount.from_pickle(account, key, shared)


def test_a_store_made_with_nios_default_key_is_re_encrypted(tmp_path: Path) -> None:
    identity, olm_id, group_id = store_as_nio_made_it(tmp_path)
    key = load_pickle_key(str(tmp_path))
    store = CryptoStore(USER, DEVICE, str(tmp_path), key)
    assert store.load_account().identity_keys == identity
    assert [s.id for s in store.load_sessions()] == [olm_id]
    assert [s.id for s in store.load_inbound_group_sessions()] == [group_id]
    store.database.close()
    (account, shared), = pickles(tmp_path)
    with pytest.raises(ValueError):
        OlmAccount.from_pickle(account, NIO_DEFAULT_KEY, shared)
    # Opened again: nothing left to migrate, the same identity.
    again = CryptoStore(USER, DEVICE, str(tmp_path), key)
    assert again.load_account().identity_keys == identity
    again.database.close()


def test_a_store_under_another_key_is_one_clear_error(tmp_path: Path) -> None:
    store = DefaultStore(USER, DEVICE, str(tmp_path), "otra-clave")
    store.save_account(OlmAccount())
    store.database.close()
    with pytest.raises(StartupError) as err:
        CryptoStore(USER, DEVICE, str(tmp_path), load_pickle_key(str(tmp_path)))
    assert err.value.code == "crypto_store_key" and PICKLE_KEY_FILE in str(err.value.params["key"])
