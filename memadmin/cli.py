"""The `memadmin` command. `memadmin serve` sets up a store and serves the dashboard on it.

Which store is served, first match wins: `--demo` (the seeded demo store, var/memadmin.sqlite3);
`--context-db PATH`; the environment variable `MEMADMIN_CONTEXT_DB=PATH`; magic-context's
default store `$XDG_DATA_HOME/cortexkit/magic-context/context.db` (`~/.local/share/...`) if it
exists; otherwise the demo store. A magic-context store is synced into a memadmin database of
its own, <var>/stores/<digest of its path>/, so it never mixes with the demo (<var> is `var/` in
a checkout, `~/.local/share/memadmin` when installed, or MEMADMIN_VAR_DIR). The first start
syncs the store before serving; a later one serves at once and leaves what changed since to
the background worker's first look, a second later (`--no-serve` syncs it before returning).
The background worker (`manage.py run_worker`: syncs started from the web, and a look at the
store every 2 s) runs beside the web server and stops with it: SIGTERM, SIGINT or SIGHUP stop
both within seconds, and one `serve` at a time runs on a store's directory.
"""

import argparse
import hashlib
import os
import sys
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path

from memadmin.core import locations
from memadmin.serve_processes import GatedServer, InstanceBusy, instance_lock, run_beside

# The folder holding the `memadmin` package (a checkout, or site-packages): the processes
# serve starts run from it, so `python -m` imports this memadmin and no other.
BASE_DIR = locations.PACKAGE_DIR.parent
DEFAULT_PORT = 8000
DEFAULT_SETTINGS = "memadmin.settings.local"
DIGEST_LENGTH = 12


class Refused(Exception):
    """The command cannot go on; its message says why, and `code` is the exit status."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of `memadmin` and its `serve` subcommand."""
    parser = argparse.ArgumentParser(prog="memadmin", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"memadmin {installed_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "manage",
        help="run one of Django's management commands (e.g. `memadmin manage changepassword admin`)",
        add_help=False,
    )
    serve = commands.add_parser(
        "serve",
        help="set up a store and serve the dashboard on it",
        description=__doc__.split("\n\n", 1)[1],
    )
    stores = serve.add_mutually_exclusive_group()
    stores.add_argument("--context-db", metavar="PATH", help="serve that magic-context store")
    stores.add_argument("--demo", action="store_true", help="serve the seeded demo store")
    serve.add_argument(
        "--port", type=int, help=f"port on 127.0.0.1 (default: $PORT or {DEFAULT_PORT})"
    )
    serve.add_argument(
        "port_given", nargs="?", type=int, metavar="PORT", help="the port, as a positional"
    )
    serve.add_argument(
        "--no-serve", action="store_true", help="set up and sync, but start no server"
    )
    return parser


def default_store(environ: Mapping[str, str]) -> Path:
    """Return where magic-context keeps its store by default."""
    return locations.data_home(environ) / "cortexkit" / "magic-context" / "context.db"


def choose_store(
    *, demo: bool, context_db: str | None, environ: Mapping[str, str]
) -> tuple[Path | None, bool]:
    """Return the store to serve (None: the demo) and whether it was found at its default place."""
    if demo:
        return None, False
    named = context_db or environ.get("MEMADMIN_CONTEXT_DB", "")
    if named:
        return Path(named).expanduser(), False
    found = default_store(environ)
    if found.is_file():
        return found, True
    return None, False


def installed_version() -> str:
    """Return memadmin's version as installed (pyproject.toml's, through the package metadata)."""
    try:
        return metadata.version("memadmin")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def store_var_dir(store: Path, environ: Mapping[str, str]) -> Path:
    """Return the memadmin directory of a store: <var>/stores/<digest of its real path>."""
    digest = hashlib.sha256(str(store).encode()).hexdigest()[:DIGEST_LENGTH]
    return locations.default_var_dir(environ) / "stores" / digest


def port_of(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Return the port asked for: `--port`, the positional PORT, `$PORT`, or 8000."""
    if args.port is not None and args.port_given is not None and args.port != args.port_given:
        raise Refused("--port and PORT name two ports; choose one", code=2)
    port = args.port if args.port is not None else args.port_given
    return port if port is not None else int(environ.get("PORT", DEFAULT_PORT))


def set_up_store(store: Path, environ: dict[str, str]) -> Path:
    """Point `environ` at the store's own memadmin directory and return the store's real path.

    Runs before Django is set up: the settings read MEMADMIN_VAR_DIR when imported.
    """
    if not store.is_file():
        raise Refused(f"{store}: no such file")
    real = store.resolve()
    environ.setdefault("MEMADMIN_VAR_DIR", str(store_var_dir(real, environ)))
    return real


def synced_before(store: Path) -> bool:
    """Return True when this database has synced the store already (a restart)."""
    from memadmin.interop.models import UpstreamStore

    return UpstreamStore.objects.filter(path=str(store)[:1000]).exists()


def prepare(store: Path | None, port: int, out, *, worker_syncs: bool = False) -> None:
    """Migrate, then sync the store (and make its first admin) or seed the demo.

    With ``worker_syncs`` (the worker is about to start), a store synced before is not read
    here: the worker's first refresh brings in what changed, while the server already answers.
    """
    from django.contrib.auth import get_user_model
    from django.core.management import CommandError, call_command

    call_command("migrate", verbosity=0)
    if store is None:
        call_command("demo", stdout=out)
        print(file=out)
        print(
            f"memadmin: open http://127.0.0.1:{port}/ and log in as admin (password memadmin-demo).",
            file=out,
        )
        print("          viewer, editor and curator exist too, with the same password.", file=out)
        return
    if worker_syncs and synced_before(store):
        print(f"{store}: synced before; the background worker brings in what changed", file=out)
    else:
        try:
            call_command("sync_context_db", str(store), incremental=True, stdout=out)
        except CommandError as error:
            message = f"the sync of {store} was refused ({error}); nothing was imported"
            raise Refused(message) from error
    if not get_user_model().objects.filter(username="admin").exists():
        print(file=out)
        call_command("person", "add", "admin", "--role", "admin", stdout=out)
        print("          (keep that password: it is shown once)", file=out)
    var_dir = os.environ["MEMADMIN_VAR_DIR"]
    print(file=out)
    print(f"memadmin: open http://127.0.0.1:{port}/ and log in as admin.", file=out)
    print(f"          serving {store}, synced into {var_dir}", file=out)
    print(
        f"          (lost the password? MEMADMIN_VAR_DIR={var_dir} "
        f"{sys.executable} -m memadmin manage changepassword admin)",
        file=out,
    )


def django_command(*words: str) -> list[str]:
    """Return the argv that runs a management command in a process of its own."""
    return [sys.executable, "-m", "django", *words]


def serve(args: argparse.Namespace, environ: dict[str, str], out) -> int:
    """Carry out `memadmin serve`: choose the store, set it up, and serve it unless told not to."""
    port = port_of(args, environ)
    store, found = choose_store(demo=args.demo, context_db=args.context_db, environ=environ)
    if found:
        print(
            f"serve: found your magic-context store at {store} (--demo serves the demo instead)",
            file=out,
        )
    if store is not None:
        store = set_up_store(store, environ)
    environ.setdefault("DJANGO_SETTINGS_MODULE", DEFAULT_SETTINGS)

    import django
    from django.conf import settings

    try:
        lock = instance_lock(Path(settings.VAR_DIR))  # the settings read, Django not set up
    except InstanceBusy as busy:
        raise Refused(str(busy)) from None
    # The web server starts now, before Django is set up here, and gets ready (Django,
    # every view, the first pages' templates) while this process sets Django up and
    # prepares the database; it listens only once that is done (`memadmin.serve_web`).
    # Django's debug pages (tracebacks) stay off unless you ask: DJANGO_DEBUG=1.
    # This listens on 127.0.0.1 only; the README's "Serving on a LAN" serves other people.
    server = None if args.no_serve else GatedServer(f"127.0.0.1:{port}", cwd=BASE_DIR, hold=[lock])
    try:
        django.setup()
        prepare(store, port, out, worker_syncs=server is not None)
    except BaseException:
        if server is not None:
            server.close()
        raise
    # Where to log in, seen at once even when the output is a pipe (a service manager, a log):
    # a stop signal ends this process before a buffer would be written.
    print(file=out, flush=True)
    if server is None:
        return 0
    return run_beside(django_command("run_worker"), server.open(), cwd=BASE_DIR, hold=[lock])


def manage(words: Sequence[str], environ: dict[str, str]) -> int:
    """Carry out `memadmin manage WORDS...`: Django's management command line, on these settings."""
    environ.setdefault("DJANGO_SETTINGS_MODULE", DEFAULT_SETTINGS)
    from django.core.management import execute_from_command_line

    execute_from_command_line(["memadmin manage", *words])
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run `memadmin COMMAND ...` and return its exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["manage"]:
        return manage(words[1:], os.environ)
    args = build_parser().parse_args(words)
    try:
        return serve(args, os.environ, sys.stdout)
    except Refused as refused:
        print(f"serve: {refused}", file=sys.stderr)
        return refused.code


if __name__ == "__main__":
    sys.exit(main())
