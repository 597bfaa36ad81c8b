"""The process tree from /proc (Linux), for the tools and tests that count what a run left running."""

from __future__ import annotations

import os
from pathlib import Path


def tree() -> dict[int, list[int]]:
    """Every process's children: parent pid -> child pids."""
    found: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found.setdefault(int(fields[1]), []).append(int(entry))
    return found


def children(pid: int) -> list[int]:
    return tree().get(pid, [])


def descendants(pid: int) -> list[int]:
    below = tree()
    out, todo = [], [pid]
    while todo:
        for child in below.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped is gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
