"""Who owns a RUNNING run, and is it still alive: owner tags, a heartbeat thread, and the staleness rule.

A process killed with SIGKILL cannot close its MLflow run, so the run would stay RUNNING forever and block (or
confuse) every later sweep. Each run therefore records its owner (host, pid, the pid's start time so a recycled
pid is not mistaken for the owner) and a heartbeat tag refreshed by a daemon thread. A later start judges a
RUNNING run stale when its owner is on this host and gone, or when its heartbeat is older than the stale limit
(the only evidence we have for owners on other hosts).

Timings come from the environment so tests and clusters can tune them without touching the cell's config (and
so its cell key): ``EVALKIT_HEARTBEAT_S`` (default 30) and ``EVALKIT_STALE_AFTER_S`` (default 180, six missed
beats: long enough for a busy SQLite store, short enough for a resumed sweep not to wait long).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

OWNER_HOST_TAG = "evalkit.owner.host"
OWNER_PID_TAG = "evalkit.owner.pid"
OWNER_START_TAG = "evalkit.owner.started"  # the pid's start time (Linux clock ticks since boot), "" if unknown
HEARTBEAT_TAG = "evalkit.heartbeat"  # epoch milliseconds of the owner's last sign of life

log = logging.getLogger("evalkit")


def heartbeat_interval_s() -> float:
    return float(os.environ.get("EVALKIT_HEARTBEAT_S", "30"))


def stale_after_s() -> float:
    return float(os.environ.get("EVALKIT_STALE_AFTER_S", "180"))


def now_ms() -> int:
    return int(time.time() * 1000)


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name (None off Linux or when the pid does not exist)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def process_start(pid: int) -> str:
    stat = _proc_stat(pid)
    return stat[19] if stat and len(stat) > 19 else ""  # field 22 of stat(5); state is field 3


def owner_tags() -> dict[str, str]:
    pid = os.getpid()
    return {
        OWNER_HOST_TAG: socket.gethostname(),
        OWNER_PID_TAG: str(pid),
        OWNER_START_TAG: process_start(pid),
        HEARTBEAT_TAG: str(now_ms()),
    }


def pid_alive(pid: int, started: str = "") -> bool:
    """True while ``pid`` runs and is the same process (same start time when one was recorded); a zombie (killed,
    not yet reaped) is dead."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    stat = _proc_stat(pid)
    if stat is None:
        return True  # not Linux: the signal test is all we have
    if stat[0] in ("Z", "X"):
        return False
    return not started or stat[19] == started


@dataclass(frozen=True)
class RunLife:
    """The liveness facts of a run, read from its tags and start time."""

    tags: Mapping[str, str]
    start_time_ms: int

    def stale_reason(self, now: int | None = None, limit_s: float | None = None) -> str | None:
        """Why this RUNNING run is dead, or None when it may still be alive."""
        host = self.tags.get(OWNER_HOST_TAG)
        pid = self.tags.get(OWNER_PID_TAG)
        if host == socket.gethostname() and pid and pid.isdigit():
            # Same host: the pid is authoritative both ways (a live owner with a late heartbeat is just busy).
            if pid_alive(int(pid), self.tags.get(OWNER_START_TAG, "")):
                return None
            return f"owner process {pid} on {host} is gone (killed or crashed before closing its run)"
        last = int(self.tags.get(HEARTBEAT_TAG) or self.start_time_ms or 0)
        age_s = ((now or now_ms()) - last) / 1000.0
        limit = stale_after_s() if limit_s is None else limit_s
        if age_s > limit:
            who = f"owner {pid} on {host}" if host else "no recorded owner"
            return f"no heartbeat for {age_s:.0f} s (limit {limit:g} s; {who})"
        return None


class Heartbeat:
    """A daemon thread calling ``beat()`` every interval until stopped; a failed beat is logged, never fatal
    (the cell's work matters more than one missed beat)."""

    def __init__(self, beat: Callable[[], None], interval_s: float | None = None) -> None:
        self._beat = beat
        self._interval = heartbeat_interval_s() if interval_s is None else interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="evalkit-heartbeat", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._beat()
            except Exception as exc:  # see class docstring
                log.warning("heartbeat failed: %s", exc)

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=max(5.0, self._interval))
