"""The hall's Mosquitto setup: config, password file and ACL; and running the broker.

Why written by us: a hall is only as safe as its broker's access list. Station N may publish only
under xqtrack/board/N/ and read only its own command topic; the hub may read every board and
publish only commands. `xqtrack hub --init-broker DIR` writes those files (passwords hashed by
Mosquitto's own `mosquitto_passwd`, clear copies in DIR/credentials.json, mode 0600, for the
organiser to hand out), so the setup we document is the setup we test.
"""
from __future__ import annotations

import getpass
import json
import os
import secrets
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import topics

CONF_NAME = "mosquitto.conf"
PASSWD_NAME = "passwd"
ACL_NAME = "acl"
CREDENTIALS_NAME = "credentials.json"
HUB_USER = "hub"


class BrokerError(RuntimeError):
    """The broker cannot be set up or started (the message says why)."""


def station_user(board: int) -> str:
    return f"station-{topics.check_board(board)}"


@dataclass(frozen=True)
class BrokerSetup:
    """What --init-broker writes: where the broker listens and for which boards."""

    folder: Path
    boards: tuple[int, ...]
    port: int = 1883
    host: str = "127.0.0.1"     # the interface the broker listens on ("0.0.0.0": every one)
    run_as: str | None = None    # the user Mosquitto runs as when started by root (None: the current user)
    tls_port: int | None = None  # a second, TLS listener (mqtts://) on this port, with the files below
    certfile: Path | None = None  # the broker's certificate (PEM), signed by the CA stations are given
    keyfile: Path | None = None   # its private key (PEM)


@dataclass(frozen=True)
class Credentials:
    """Users and clear passwords, as DIR/credentials.json holds them."""

    host: str
    port: int
    users: dict[str, str]

    def url(self, user: str, host: str | None = None) -> str:
        return f"mqtt://{user}:{self.users[user]}@{host or _client_host(self.host)}:{self.port}"

    @classmethod
    def load(cls, folder: str | Path) -> "Credentials":
        path = Path(folder) / CREDENTIALS_NAME
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
            return cls(str(d["host"]), int(d["port"]), {str(k): str(v) for k, v in d["users"].items()})
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise BrokerError(f"{path}: not a credentials file written by --init-broker ({exc})") from None


def _client_host(host: str) -> str:
    return "127.0.0.1" if host in ("0.0.0.0", "", "::") else host


def find_tool(name: str) -> str:
    """Path of a Mosquitto program (Debian puts the broker in /usr/sbin)."""
    found = shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if Path(p).exists()),
                                       None)
    if found is None:
        raise BrokerError(f"{name} is not installed (Debian: apt-get install mosquitto)")
    return found


def acl_text(boards: tuple[int, ...]) -> str:
    """Mosquitto ACL: the hub reads every board and writes commands; station N only its own board."""
    lines = ["# xqtrack hall ACL (written by `xqtrack hub --init-broker`)",
             "# the hub reads every board, writes only commands", f"user {HUB_USER}",
             f"topic read {topics.ROOT}/board/#", f"topic write {topics.ALL_COMMANDS}", ""]
    for b in boards:
        lines += [f"# board {b}: publishes its journal and state, reads its commands", f"user {station_user(b)}",
                  f"topic write {topics.board_prefix(b)}/#", f"topic read {topics.command_topic(b)}", ""]
    return "\n".join(lines)


def conf_text(setup: BrokerSetup, folder: Path) -> str:
    run_as = setup.run_as or getpass.getuser()
    return "\n".join([
        "# xqtrack hall broker (written by `xqtrack hub --init-broker`); run: mosquitto -c " + str(folder / CONF_NAME),
        "per_listener_settings false",
        f"listener {setup.port} {setup.host}",
        "allow_anonymous false",
        f"password_file {folder / PASSWD_NAME}",
        f"acl_file {folder / ACL_NAME}",
        "persistence true",
        f"persistence_location {folder / 'data'}/",
        "autosave_interval 5",
        "max_queued_messages 100000",      # a hub that is away finds every board's lines waiting
        "max_inflight_messages 200",
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        f"user {run_as}",                  # used only when started by root
        "",
    ] + ([f"# TLS: stations and hub use mqtts://HOST:{setup.tls_port} with --ca (the CA that signed the certificate)",
          f"listener {setup.tls_port} {setup.host}", f"certfile {Path(setup.certfile).resolve()}",
          f"keyfile {Path(setup.keyfile).resolve()}", "tls_version tlsv1.2", ""]
         if setup.tls_port is not None and setup.certfile is not None and setup.keyfile is not None else []))


def init_broker(setup: BrokerSetup) -> Credentials:
    """Write DIR/mosquitto.conf, DIR/passwd (hashed), DIR/acl and DIR/credentials.json (0600)."""
    folder = Path(setup.folder).resolve()
    if not setup.boards:
        raise BrokerError("--init-broker needs at least one board (--boards N or a --tournament file)")
    for b in setup.boards:
        topics.check_board(b)
    if setup.tls_port is not None:
        for what, pem in (("--tls-cert", setup.certfile), ("--tls-key", setup.keyfile)):
            if pem is None or not Path(pem).is_file():
                raise BrokerError(f"a TLS listener needs {what} FILE (PEM); {pem or 'none'} is not a file")
    passwd_tool = find_tool("mosquitto_passwd")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data").mkdir(exist_ok=True)
    old = Credentials.load(folder).users if (folder / CREDENTIALS_NAME).exists() else {}
    users = {HUB_USER: old.get(HUB_USER) or secrets.token_urlsafe(12)}
    for b in setup.boards:
        users[station_user(b)] = old.get(station_user(b)) or secrets.token_urlsafe(12)
    passwd = folder / PASSWD_NAME
    fd = os.open(passwd, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("".join(f"{u}:{p}\n" for u, p in users.items()))
    done = subprocess.run([passwd_tool, "-U", str(passwd)], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        passwd.unlink(missing_ok=True)
        raise BrokerError(f"mosquitto_passwd -U {passwd} failed: {(done.stderr or done.stdout).strip()}")
    (folder / ACL_NAME).write_text(acl_text(tuple(setup.boards)), encoding="utf-8")
    (folder / CONF_NAME).write_text(conf_text(setup, folder), encoding="utf-8")
    creds = Credentials(setup.host, setup.port, users)
    fd = os.open(folder / CREDENTIALS_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"host": creds.host, "port": creds.port, "users": users}, f, indent=1)
    return creds


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (tests, the demo)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def wait_listening(host: str, port: int, timeout_s: float = 10.0) -> None:
    """Return once something accepts TCP connections on host:port (BrokerError after `timeout_s`)."""
    until = time.monotonic() + timeout_s
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > until:
                raise BrokerError(f"nothing listens on {host}:{port} after {timeout_s:.0f} s") from None
            time.sleep(0.05)


def start_mosquitto(folder: str | Path, log: str | Path | None = None) -> "subprocess.Popen[bytes]":
    """Run Mosquitto on DIR/mosquitto.conf in the background; returns once it listens."""
    folder = Path(folder).resolve()
    creds = Credentials.load(folder)
    binary = find_tool("mosquitto")
    out = open(log, "ab") if log is not None else subprocess.DEVNULL
    proc = subprocess.Popen([binary, "-c", str(folder / CONF_NAME)], stdout=out, stderr=out,
                            stdin=subprocess.DEVNULL)
    try:
        wait_listening(_client_host(creds.host), creds.port)
    except BrokerError:
        proc.kill()
        proc.wait(5)
        raise BrokerError(f"mosquitto -c {folder / CONF_NAME} did not start listening on port {creds.port}"
                          + (f"; see {log}" if log else "")) from None
    if proc.poll() is not None:
        raise BrokerError(f"mosquitto exited at once (status {proc.returncode}); port {creds.port} in use?")
    return proc
