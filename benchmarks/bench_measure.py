"""Measurement helpers of the benchmark scripts: the machine line, best-of timing with CPU time, Linux memory peaks."""

from __future__ import annotations

import math
import os
import platform
import subprocess
import time
from pathlib import Path

import numpy as np

LIMIT = 180.0         # a baseline stage estimated to take longer than this (s) is skipped
CPU: dict[str, float] = {}   # process CPU seconds of the best run of each stage (threads included)


def machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
        cpu = f"{fields.get('Model name', '?').strip()}, {fields.get('CPU(s)', '?').strip()} CPU(s)"
    except (OSError, subprocess.CalledProcessError):
        cpu = platform.processor() or "?"
    import scipy
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    return (f"{cpu}; load average {load:.1f} at start; Python {platform.python_version()}; numpy {np.__version__}; "
            f"scipy {scipy.__version__}")


def best_of(repeats: int, fn, name: str | None = None):
    best, value = math.inf, None
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        value = fn()
        wall = time.perf_counter() - start
        if wall < best:
            best = wall
            if name:
                CPU[name] = time.process_time() - cpu
    return best, value


def memory_status(key: str) -> float:
    """VmRSS / VmHWM of this process in MB (Linux), nan elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return math.nan


def reset_memory_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")   # resets VmHWM to the current RSS (Linux >= 4.0)
        return True
    except OSError:
        return False
