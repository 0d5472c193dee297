"""A real PostgreSQL server for the tests, from Debian's ``postgresql`` package.

:class:`PostgresServer` runs ``initdb`` in a temporary directory and ``postgres`` on a free
loopback port, and stops it (and removes the directory) at the end. The tests and CI run as
root, and ``initdb`` refuses root: as root the server runs as the package's ``postgres`` user,
which owns the directory. Without the package the tests that need it skip, naming the command
that installs it (:data:`INSTALL`).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["INSTALL", "PostgresServer", "find_bin_dir", "postgres_server"]

INSTALL = "apt-get install -y postgresql"
"""What installs the server (as root); ``.ci/run`` does it."""

_READY_TIMEOUT_S = 60.0


def find_bin_dir() -> Path | None:
    """The newest installed PostgreSQL's ``bin`` directory (Debian keeps one per major version)."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name), reverse=True
    )
    if found:
        return found[0].parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PostgresServer:
    """One PostgreSQL server: :meth:`start`, :meth:`stop` (and start again), :meth:`close`."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.as_root = os.geteuid() == 0
        self._user: dict[str, Any] = {}
        if self.as_root:
            entry = pwd.getpwnam("postgres")  # the package creates this user
            self._user = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
        # Not under pytest's tmp_path: its parents are private to root, and the server's user
        # must reach the directory.
        self.dir = Path(tempfile.mkdtemp(prefix="llmist-pg-"))
        if self.as_root:
            os.chown(self.dir, self._user["user"], self._user["group"])
        self.data = self.dir / "data"
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._databases = 0
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C")

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run(
            [str(self.bin_dir / tool), *args], capture_output=True, cwd=self.dir, check=False, **self._user
        )
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr.decode(errors='replace')[-2000:]}")

    def start(self) -> None:
        """Start the server on :attr:`port` and return once it accepts connections."""
        log = open(self.dir / "server.log", "ab")  # noqa: SIM115 (the server writes it while it runs)
        args = [
            str(self.bin_dir / "postgres"),
            *("-D", str(self.data), "-p", str(self.port), "-h", "127.0.0.1", "-k", str(self.dir)),
            *("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"),
        ]
        self.process = subprocess.Popen(args, stdout=log, stderr=log, cwd=self.dir, **self._user)
        log.close()
        deadline = time.monotonic() + _READY_TIMEOUT_S
        while True:
            ready = subprocess.run(
                [str(self.bin_dir / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"],
                capture_output=True,
                check=False,
            )
            if ready.returncode == 0:
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                tail = (self.dir / "server.log").read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"PostgreSQL did not start on port {self.port}: {tail}")
            time.sleep(0.05)  # polling a server's readiness: there is no event to wait on

    def stop(self) -> None:
        """Stop the server (a fast shutdown: open connections are ended)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def close(self) -> None:
        """Stop the server and remove its directory."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of ``database`` on this server."""
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new, empty database; its SQLAlchemy URL."""
        self._databases += 1
        name = f"llmist_test_{self._databases}"
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return self.url(name)


@contextlib.contextmanager
def postgres_server(bin_dir: Path) -> Iterator[PostgresServer]:
    """A started server, stopped and removed on exit."""
    server = PostgresServer(bin_dir)
    try:
        server.start()
        yield server
    finally:
        server.close()
