"""A warm search process: `hymem serve` keeps a bank, its vector codes and the embedder loaded, and
`hymem search` asks it over a Unix socket instead of loading them again.

One socket per bank, in a private directory of this user (`socket_path`). A request is one JSON
line — the bank's resolved path, the query, limit, filter and weights — and the answer one JSON
line with the hits, exactly what an in-process search returns. Anything unexpected (no server, a
stale socket, a server for another bank, an error) makes `ask` return None, and the caller
searches in process: the server only ever saves time.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import tempfile
from pathlib import Path
from typing import Callable

from hymem_cli._errors import BankError

TIMEOUT = 10.0  # seconds a client waits for an answer before searching itself
READ_TIMEOUT = 5.0  # seconds the server waits for a client's request line before dropping it
MAX_REQUEST = 1 << 20  # bytes: a request is a query and a filter, never more


def socket_path(bank_path: Path) -> Path:
    """Where the server of `bank_path` listens: short (Unix sockets allow about 100 bytes) and private."""
    digest = hashlib.blake2b(str(bank_path.resolve()).encode(), digest_size=8).hexdigest()
    return Path(tempfile.gettempdir()) / f"hymem-{os.getuid()}" / f"{digest}.sock"


def _private_dir(path: Path) -> bool:
    """True when `path` is a directory only this user can enter (so no one else can stand in for the server)."""
    return _why_not_private(path) is None


def writer_mark(bank_path: Path) -> Path:
    """The file a `hymem serve --write` keeps beside its socket while it writes the bank's queue: its pid."""
    return socket_path(bank_path).with_suffix(".writer")


def writing(bank_path: Path) -> int | None:
    """The pid of the `hymem serve --write` writing this bank's queue, or None when none is running."""
    mark = writer_mark(bank_path)
    try:
        pid = int(mark.read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def _why_not_private(path: Path) -> str | None:
    """Why `path` cannot hold this user's socket, or None: it must be a real directory (not a link another user may
    have planted), owned by this user, that no group or other user can enter."""
    try:
        st = path.lstat()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if st.st_uid != os.getuid():
        return f"belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o077:
        return f"is open to other users (mode {stat.S_IMODE(st.st_mode):04o}, must be 0700)"
    return None


def make_socket_dir(path: Path) -> None:
    """Make the socket directory `path` (0700) if it is missing, and refuse it unless it is this user's alone: another
    user who made it first, or could write to it, could stand in for the server or read the searches."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise BankError(f"cannot make the socket directory {path}: {exc.strerror or exc}", hint="set TMPDIR to a directory of yours") from None
    if why := _why_not_private(path):
        raise BankError(f"the socket directory {path} {why}; refusing to serve from it",
                        hint=f"remove it if you did not make it (rm -r {path}), or set TMPDIR to a directory of yours")


def ask(bank_path: Path, request: dict, timeout: float = TIMEOUT) -> list[dict] | None:
    """The hits a running server gives for `request`, or None when no server for this bank answers properly."""
    path = socket_path(bank_path)
    if not path.exists() or not _private_dir(path.parent):
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(path))
            conn.sendall(json.dumps({"bank": str(bank_path.resolve()), **request}).encode() + b"\n")
            answer = json.loads(_read_line(conn))
    except (OSError, ValueError):
        return None
    hits = answer.get("hits") if isinstance(answer, dict) else None
    return hits if isinstance(hits, list) else None


def _read_line(conn) -> bytes:
    chunks = []
    while not chunks or not chunks[-1].endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def serve(bank, answer: Callable[[dict], list[dict]], on_ready: Callable[[Path], None] = lambda path: None) -> int:
    """Answer requests for `bank` until interrupted; returns how many were answered.

    `answer` turns a request (query, limit, filter, weights) into hits; it runs here, one request
    at a time, on the bank this process keeps open. Clients are read side by side, each within
    READ_TIMEOUT: one that sends half a request and waits holds up no one else.
    """
    import signal
    import socketserver
    import threading

    path = socket_path(bank.path)
    make_socket_dir(path.parent)
    if path.exists() or path.is_symlink():
        if ask(bank.path, {"query": ""}, timeout=2.0) is not None:
            raise BankError(f"another hymem serve is already answering for {bank.path}", hint="stop it first, or use it")
        path.unlink()  # left by a server that was killed
    mine = str(bank.path.resolve())
    answered = 0
    searching = threading.Lock()  # one search at a time on the one connection; reading requests needs no turn

    class Handler(socketserver.StreamRequestHandler):
        timeout = READ_TIMEOUT  # set on the connection: a stalled client times out alone

        def handle(self) -> None:
            nonlocal answered
            try:
                line = self.rfile.readline(MAX_REQUEST + 1)
                if not line.endswith(b"\n"):
                    raise ValueError("an incomplete or oversized request")
                request = json.loads(line)
                if request.get("bank") != mine:
                    raise ValueError("another bank")
                with searching:
                    hits = answer(request) if request.get("query") else []
                    answered += bool(request.get("query"))
                reply = {"hits": hits}
            except Exception as exc:  # noqa: BLE001 - the client searches in process instead
                reply = {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
            try:
                self.wfile.write(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
            except OSError:  # the client gave up waiting
                pass

    old_umask = os.umask(0o177)  # the socket is created 0600
    try:
        server = _server_class()(str(path), Handler)
    finally:
        os.umask(old_umask)

    def stop(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)  # `kill` stops it as cleanly as Ctrl-C
    try:
        on_ready(path)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
        path.unlink(missing_ok=True)
    return answered


def _server_class():
    import socketserver

    class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
        daemon_threads = True  # a client still being read never keeps the process from stopping

    return Server
