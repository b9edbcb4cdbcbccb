"""Cross-signing for the bot's own account, by hand (matrix-nio has none; DESIGN.md 4).

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
from bot.matrix.session import NETWORK_ERRORS, Session

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
    path = _path(config)
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


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


async def ensure_cross_signing(session: Session, config: Config) -> bool:
    """Make sure the bot's device is signed by its account's self-signing key; True once it is."""
    device = session.client.device_id or ""
    state = load_state(config)
    if state and device in state.get("signed_devices", []):
        return True
    password = config.matrix.password.value
    if state is None:
        if not password:
            log.warning("cross-signing is not set up, so clients show the bot's device as unverified; "
                        "set it up once with: ROLBOT_PASSWORD=... rolbot run --config PATH --setup-crypto")
            return False
        state = {name: b64(os.urandom(32)) for name in KEY_NAMES}
        state.update(uploaded=False, signed_devices=[])
        save_state(config, state)
    keys = {name: SigningKey(unb64(state[name])) for name in KEY_NAMES}
    if not state.get("uploaded"):
        if not password:
            log.warning("cross-signing keys are not uploaded yet: run once with ROLBOT_PASSWORD set and --setup-crypto")
            return False
        await upload_keys(session, password, keys)
        state["uploaded"] = True
        save_state(config, state)
        log.info("cross-signing keys uploaded (master %s)", keys["master"].public)
    await sign_device(session, keys["self_signing"])
    state["signed_devices"] = [*state.get("signed_devices", []), device]
    save_state(config, state)
    log.info("device %s signed by the account's self-signing key", device)
    return True
