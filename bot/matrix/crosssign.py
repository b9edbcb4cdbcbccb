"""Cross-signing for the bot's own account, by hand (matrix-nio has none; docs/development.md#4).

At the first start with the password: three ed25519 keys (master, self-signing, user-signing)
are made and kept in ``[storage] path``/``cross_signing.json`` (mode 0600, never logged), the
public halves are uploaded through user-interactive auth (``/keys/device_signing/upload``) and
the bot's device is signed with the self-signing key (``/keys/signatures/upload``). Clients then
show the device as verified by its owner. The file is written before anything is uploaded, so a
crash never leaves keys on the server that the bot does not have.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from typing import Any

import aiohttp

from bot.config import Config
from bot.matrix.errors import PermanentError
from bot.matrix.metrics import MatrixMetrics
from bot.matrix.session import NETWORK_ERRORS, Session, write_owner_only

log = logging.getLogger("rolbot.matrix")

KEY_NAMES = ("master", "self_signing", "user_signing")
FILE_NAME = "cross_signing.json"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def canonical(obj: dict[str, Any]) -> bytes:
    """Matrix canonical JSON of ``obj`` without ``signatures`` and ``unsigned`` (what is signed)."""
    body = {k: v for k, v in obj.items() if k not in ("signatures", "unsigned")}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


class SigningKey:
    def __init__(self, seed: bytes) -> None:
        # Imported here: cryptography's OpenSSL bindings weigh ~6 MB resident, and a bot whose
        # device was signed at an earlier start never needs them (bench/scale.py, RSS).
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        self.public = b64(self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))

    @property
    def key_id(self) -> str:
        return f"ed25519:{self.public}"

    def sign(self, user_id: str, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` with this key's signature added under ``user_id``."""
        signed = dict(obj)
        sigs = {u: dict(s) for u, s in (obj.get("signatures") or {}).items()}
        sigs.setdefault(user_id, {})[self.key_id] = b64(self._key.sign(canonical(obj)))
        signed["signatures"] = sigs
        signed.pop("unsigned", None)
        return signed

    def __repr__(self) -> str:
        return f"SigningKey({self.public})"  # never the private half


def _path(config: Config) -> str:
    return os.path.join(config.storage_path, FILE_NAME)


def load_state(config: Config) -> dict[str, Any] | None:
    try:
        with open(_path(config), encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return None
    except ValueError:
        raise PermanentError(f"{_path(config)} is not valid JSON: move it away to make new keys") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in KEY_NAMES):
        raise PermanentError(f"{_path(config)} is not a cross-signing key file")
    return data


def save_state(config: Config, data: dict[str, Any]) -> None:
    write_owner_only(_path(config), json.dumps(data))


def key_objects(user_id: str, keys: dict[str, SigningKey]) -> dict[str, dict[str, Any]]:
    """The three public key objects for ``/keys/device_signing/upload``, the sub-keys signed by master."""
    master = keys["master"]

    def obj(name: str) -> dict[str, Any]:
        return {"user_id": user_id, "usage": [name], "keys": {keys[name].key_id: keys[name].public}}

    return {"master_key": obj("master"),
            "self_signing_key": master.sign(user_id, obj("self_signing")),
            "user_signing_key": master.sign(user_id, obj("user_signing"))}


async def _call(session: Session, method: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    client = session.client
    url = session.homeserver + path
    headers = {"Authorization": f"Bearer {client.access_token}"}
    try:
        async with aiohttp.ClientSession() as http, http.request(
                method, url, json=body, headers=headers, timeout=aiohttp.ClientTimeout(total=60)) as resp:
            data = await resp.json(content_type=None)
            return resp.status, data if isinstance(data, dict) else {}
    except NETWORK_ERRORS as err:
        raise PermanentError(f"{path}: {err}") from None


async def upload_keys(session: Session, password: str, keys: dict[str, SigningKey]) -> None:
    user_id = session.user_id
    body: dict[str, Any] = key_objects(user_id, keys)
    path = "/_matrix/client/v3/keys/device_signing/upload"
    status, data = await _call(session, "POST", path, body)
    if status == 401 and "session" in data:
        body["auth"] = {"type": "m.login.password", "identifier": {"type": "m.id.user", "user": user_id},
                        "password": password, "session": data["session"]}
        status, data = await _call(session, "POST", path, body)
    if status != 200:
        raise PermanentError(f"cross-signing keys refused: HTTP {status} {data.get('errcode', '')}")


async def sign_device(session: Session, self_signing: SigningKey) -> None:
    user_id, device = session.user_id, session.client.device_id or ""
    status, data = await _call(session, "POST", "/_matrix/client/v3/keys/query",
                               {"device_keys": {user_id: [device]}})
    device_keys = ((data.get("device_keys") or {}).get(user_id) or {}).get(device)
    if status != 200 or not isinstance(device_keys, dict):
        raise PermanentError(f"the keys of device {device} are not on the server yet")
    signed = self_signing.sign(user_id, device_keys)
    signed["signatures"] = {user_id: {self_signing.key_id: signed["signatures"][user_id][self_signing.key_id]}}
    status, data = await _call(session, "POST", "/_matrix/client/v3/keys/signatures/upload",
                               {user_id: {device: signed}})
    failures = data.get("failures") or {}
    if status != 200 or failures:
        raise PermanentError(f"device signature refused: HTTP {status} {sorted(failures)}")


async def server_master_key(session: Session) -> str | None:
    """The public master key the homeserver has for the bot's account, if any."""
    user_id = session.user_id
    status, data = await _call(session, "POST", "/_matrix/client/v3/keys/query", {"device_keys": {user_id: []}})
    if status != 200:
        raise PermanentError(f"the cross-signing keys of {user_id} could not be read: HTTP {status}")
    master = (data.get("master_keys") or {}).get(user_id)
    keys = master.get("keys") if isinstance(master, dict) else None
    public = next(iter(keys.values()), None) if isinstance(keys, dict) else None
    return public if isinstance(public, str) else None


def _new_state(config: Config) -> dict[str, Any]:
    """Fresh keys, written before anything is uploaded (a crash never leaves the server with keys
    the bot does not have)."""
    state: dict[str, Any] = {name: b64(os.urandom(32)) for name in KEY_NAMES}
    state.update(uploaded=False, signed_devices=[])
    save_state(config, state)
    return state


def _master_public(config: Config, state: dict[str, Any]) -> str:
    """The public half of the state's master key (kept in the state: no crypto library to load)."""
    public = state.get("master_public")
    if not isinstance(public, str):
        public = state["master_public"] = SigningKey(unb64(state["master"])).public
        save_state(config, state)
    return public


def _no_password(what: str) -> bool:
    log.warning("%s needs the account's password (user-interactive auth), so clients show the bot's device as "
                "unverified; do it once with: ROLBOT_PASSWORD=... rolbot run --config PATH --setup-crypto", what)
    return False


async def _upload_and_sign(session: Session, config: Config, state: dict[str, Any], password: str,
                           upload: bool) -> None:
    if not upload and state.get("uploaded") and (session.client.device_id or "") in state.get("signed_devices", []):
        return  # already done at an earlier start: cryptography (~6 MB resident) stays unloaded
    keys = {name: SigningKey(unb64(state[name])) for name in KEY_NAMES}
    if upload:
        await upload_keys(session, password, keys)
        log.info("cross-signing keys uploaded (master %s)", keys["master"].public)
    if not state.get("uploaded"):
        state.update(uploaded=True, master_public=keys["master"].public)
        save_state(config, state)
    device = session.client.device_id or ""
    if device not in state.get("signed_devices", []):
        await sign_device(session, keys["self_signing"])
        state["signed_devices"] = [*state.get("signed_devices", []), device]
        save_state(config, state)
        log.info("device %s signed by the account's self-signing key", device)


async def ensure_cross_signing(session: Session, config: Config, reset: bool = False) -> bool:
    """Make sure the bot's device is signed by its account's self-signing key; True once it is.

    A master key already on the server that the bot's state cannot sign with (a lost state folder,
    the account set up in Element) is the account's identity: it is never replaced, unless
    ``reset`` (``rolbot run --reset-cross-signing``) says so."""
    password = config.matrix.password.value
    state = load_state(config)
    on_server = await server_master_key(session)
    if reset:
        if not password:
            return _no_password("--reset-cross-signing")
        state = _new_state(config)
        await _upload_and_sign(session, config, state, password, upload=True)
        session.metrics.part(MatrixMetrics).cross_signing_conflict = False
        log.warning("cross-signing identity of %s replaced on purpose (--reset-cross-signing): master key %s -> %s; "
                    "whoever had verified the account sees its identity change and has to verify it again",
                    session.user_id, on_server or "none", state["master_public"])
        return True
    mine = _master_public(config, state) if state is not None else None
    if on_server is not None and on_server != mine:
        session.metrics.part(MatrixMetrics).cross_signing_conflict = True
        log.warning("cross-signing: the account %s already has a master key on the homeserver (%s) that this bot's "
                    "state cannot sign with (a lost [storage] folder, or the account set up in Element): it is kept, "
                    "and the bot runs without cross-signing (clients show its device as unverified); to replace it "
                    "on purpose: rolbot run --config PATH --reset-cross-signing", session.user_id, on_server)
        return False
    session.metrics.part(MatrixMetrics).cross_signing_conflict = False
    if state is None:
        if not password:
            return _no_password("setting up cross-signing")
        state = _new_state(config)
    if on_server is None and not password:
        return _no_password("uploading the cross-signing keys")
    await _upload_and_sign(session, config, state, password, upload=on_server is None)
    return True
