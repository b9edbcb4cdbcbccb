"""One process per database: ``<database>.lock`` beside it, held with ``flock`` for as long as the
process runs and holding its pid, so a second ``rolbot run`` on the same ``[storage] path`` (the same
identity and keys) or a ``rolbot console --db`` on the bot's database is refused, naming
the process that holds it. The kernel lets a lock go when its process dies: a pid found in a lock no
process holds was left by one that ended without cleaning up, and is taken over with a log line."""

from __future__ import annotations

import errno
import fcntl
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from bot.core.errors import StartupError

log = logging.getLogger("rolbot")

MAX_PID_TEXT = 32
"""What is read of a lock file: a pid and its newline (anything longer is not one)."""


def lock_path(db_path: str) -> str:
    return db_path + ".lock"


def _pid(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 10 else None


def _open(db_path: str) -> TextIO:
    try:
        fd = os.open(lock_path(db_path), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:
        if err.errno == errno.ENOENT:
            raise StartupError("db_cannot_open", path=db_path) from None
        if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise StartupError("db_readonly", path=db_path) from None
        raise StartupError("db_error", path=db_path, detail=err.strerror or str(err)) from None
    return os.fdopen(fd, "r+", encoding="ascii", errors="replace")


@contextmanager
def database_lock(db_path: str) -> Iterator[None]:
    """Hold the database's lock for the ``with`` block; ``StartupError("db_locked")`` when another process
    holds it. On the way out the pid is cleared and the lock let go."""
    file = _open(db_path)
    try:
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StartupError("db_locked", path=db_path, pid=_pid(file.read(MAX_PID_TEXT))) from None
        left = _pid(file.read(MAX_PID_TEXT))
        if left is not None:
            log.warning("%s: taking over the lock left by pid %d, which ended without letting it go",
                        lock_path(db_path), left)
        file.seek(0)
        file.truncate()
        file.write(f"{os.getpid()}\n")
        file.flush()
        try:
            yield
        finally:
            file.seek(0)
            file.truncate()
            file.flush()
    finally:
        file.close()  # closing the file lets the lock go
