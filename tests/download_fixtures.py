"""Fixtures of the download tests: a local HTTP site and zip bombs, built here, never downloaded.

:class:`LocalSite` is Python's :mod:`http.server` on 127.0.0.1 in a thread: each path serves
bytes (with their ``Content-Length``) or runs a behaviour (:func:`stalls`, :func:`drips`,
:func:`cut_short`, :func:`endless`). :func:`write_zip_bomb` writes a zip whose one member
expands to any size of valid-looking CSV lines while the zip itself takes a few MB: the member's
deflate stream is one compressed megabyte repeated (each piece ends byte-aligned with a full
flush and no reference outside itself, so the pieces concatenate to a valid stream), and the
CRC is computed over the expanded bytes, so :mod:`zipfile` reads the bomb as a sound archive.
"""

from __future__ import annotations

import http.server
import json
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

#: a line of the heart-disease data (processed.hungarian.data)
HEART_LINE = b"28,1,2,130,132,0,2,185,0,0,?,?,?,0\n"


class LocalSite:
    """An HTTP server on 127.0.0.1 (a free port) serving ``pages``: path -> bytes or behaviour."""

    def __init__(self):
        self.pages: dict[str, bytes | Callable] = {}
        self.requests: list[str] = []
        self.stop = threading.Event()
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 - http.server's name
                site.requests.append(self.path)
                page = site.pages.get(self.path)
                if page is None:
                    self.send_error(404, "Not Found")
                elif callable(page):
                    page(self, site.stop)
                else:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(page)))
                    self.end_headers()
                    self.wfile.write(page)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def _headers(handler, length: int | None) -> None:
    handler.send_response(200)
    if length is not None:
        handler.send_header("Content-Length", str(length))
    else:
        handler.send_header("Connection", "close")
        handler.close_connection = True
    handler.end_headers()


def stalls(head: bytes, *, length: int | None = None) -> Callable:
    """Send ``head``, then nothing until the site closes (the body stalls); with ``head=b""``
    and ``length=-1`` not even the headers are sent."""
    def behave(handler, stop):
        if length != -1:
            _headers(handler, length if length is not None else len(head) * 2)
            handler.wfile.write(head)
            handler.wfile.flush()
        stop.wait(30)
    return behave


def drips(every: float) -> Callable:
    """A line each ``every`` seconds, never ending (no read timeout fires; the total deadline must)."""
    def behave(handler, stop):
        _headers(handler, None)
        while not stop.wait(every):
            handler.wfile.write(HEART_LINE)
            handler.wfile.flush()
    return behave


def cut_short(body: bytes, declared: int) -> Callable:
    """Declare ``declared`` bytes, send ``body`` (fewer) and close the connection."""
    def behave(handler, stop):
        handler.send_response(200)
        handler.send_header("Content-Length", str(declared))
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()
        handler.close_connection = True
    return behave


def endless(*, declared: int | None = None) -> Callable:
    """Valid-looking lines without end (until the client leaves), under a ``Content-Length`` of
    ``declared`` if given (a lie or the truth: the client must count)."""
    chunk = HEART_LINE * (65536 // len(HEART_LINE))

    def behave(handler, stop):
        _headers(handler, declared)
        try:
            while not stop.is_set():
                handler.wfile.write(chunk)
        except OSError:  # the client hung up
            pass
    return behave


def heart_lines(count: int) -> bytes:
    """``count`` distinct valid-looking lines of the heart-disease data (seeded, the same every run)."""
    rng = random.Random(count)
    return b"".join(f"{rng.randint(28, 77)},{rng.randint(0, 1)},{rng.randint(1, 4)},{rng.randint(92, 200)},"
                    f"{rng.randint(85, 603)},0,{rng.randint(0, 2)},{rng.randint(82, 190)},0,{rng.randint(0, 50) / 10},"
                    "?,?,?,0\n".encode() for _ in range(count))


def write_zip_bomb(path: str | Path, member: str, size: int, *, lines: bytes = HEART_LINE,
                   extra: dict[str, bytes] | None = None, declared: int | None = None) -> Path:
    """Write a zip holding ``member``, ``size`` bytes (rounded down to whole copies of ``lines``)
    of ``lines`` repeated, and the small ``extra`` members; return ``path``.

    One line repeated compresses about 338 times (3 GB in 9 MB); :func:`heart_lines` of a few
    hundred lines, under 100 times. ``declared``: the size the archive states for ``member``
    (default: the truth). ``size`` must stay under 4 GiB (no zip64 here)."""
    block = lines * max(1, 1_048_576 // len(lines))
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)   # byte-aligned, self-contained
    count, rest = divmod(size, len(block))
    tail_lines = lines * (rest // len(lines))
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    tail = compressor.compress(tail_lines) + compressor.flush(zlib.Z_FINISH)    # ends the stream
    crc = 0
    for _ in range(count):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail_lines, crc)
    expanded = count * len(block) + len(tail_lines)
    assert expanded < 1 << 32, "no zip64 here"
    entries = [(member.encode(), crc, count * len(piece) + len(tail), expanded if declared is None else declared,
                lambda out: _repeat(out, piece, count, tail))]
    for name, data in (extra or {}).items():
        packed = zlib.compressobj(9, zlib.DEFLATED, -15)
        packed = packed.compress(data) + packed.flush()
        entries.append((name.encode(), zlib.crc32(data), len(packed), len(data), lambda out, p=packed: out.write(p)))
    _write_zip(Path(path), entries)
    return Path(path)


def _repeat(out, piece: bytes, count: int, tail: bytes) -> None:
    for _ in range(count):
        out.write(piece)
    out.write(tail)


def _write_zip(path: Path, entries) -> None:
    """A deflated zip of ``entries`` (name, crc, compressed size, size, writer of the compressed data)."""
    central, stamp = [], (12 << 11, (1 << 5) | 1)          # 12:00, 1980-01-01
    with open(path, "wb") as out:
        for name, crc, packed, size, write in entries:
            offset = out.tell()
            out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, *stamp, crc, packed, size, len(name), 0) + name)
            write(out)
            central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, *stamp, crc, packed, size,
                                       len(name), 0, 0, 0, 0, 0, offset) + name)
        start = out.tell()
        out.write(b"".join(central))
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(central), len(central), out.tell() - start, start, 0))


def wait_for(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    """Poll ``condition`` until true or ``seconds`` pass."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                   "NO_PROXY")


@pytest.fixture
def site(monkeypatch):
    """No mirror, no proxy: a :class:`LocalSite` stands for UCI, its API too (``site.url('/api/dataset')``)."""
    from pufferfish.pipeline.fetch import ucimlrepo_api

    monkeypatch.delenv("UCI_MIRROR", raising=False)
    monkeypatch.delenv("PUFFERFISH_DOWNLOAD_TIMEOUTS", raising=False)
    for variable in PROXY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    local = LocalSite()
    monkeypatch.setattr(ucimlrepo_api, "API_BASE_URL", local.url("/api/dataset"))
    yield local
    local.close()


def no_network(monkeypatch) -> None:
    """Make any connection attempt fail the test (the mirror path must never touch the network)."""
    def refuse(*args, **kwargs):
        raise AssertionError("the network was touched although UCI_MIRROR is set")

    monkeypatch.setattr(socket, "create_connection", refuse)


def measured_download(dataset: str, spec: dict, cache: str, *, mirror: str | None = None,
                      serve_endless: bool = False) -> dict:
    """Download ``dataset`` into ``cache`` in this process; return the one error line (or ``None``)
    and the seconds taken. With ``serve_endless`` the spec's ``url`` is replaced by that of an
    endless body served by a :class:`LocalSite` of this process."""
    from pufferfish.pipeline.fetch import Timeouts, download
    from pufferfish.pipeline.jobs import error_line

    site = None
    if serve_endless:
        site = LocalSite()
        site.pages["/endless.zip"] = endless()
        spec = {**spec, "url": site.url("/endless.zip")}
    start, error = time.monotonic(), None
    try:
        download(dataset, spec, csv_path=Path(cache) / f"{dataset}.csv", json_path=Path(cache) / f"{dataset}.json",
                 mirror=mirror, timeouts=Timeouts(5, 5, 60))
    except Exception as err:  # noqa: BLE001 - the line is what the test checks
        error = error_line(err)
    seconds = time.monotonic() - start
    if site is not None:
        site.close()
    return {"error": error, "seconds": seconds}


#: runs ``argv[1:]`` and prints, last, the peak resident memory (kB) of the largest process it waited for
_PEAK_WRAPPER = """import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak_of(command: list[str], **popen) -> tuple[int, str, str, float]:
    """Run ``command``; return its exit status, stdout, stderr and its peak resident memory in MB.

    The peak is the largest ``ru_maxrss`` among the processes of the run (``RUSAGE_CHILDREN``
    of a small wrapper interpreter, which starts the command). Not the test process's own
    children: Linux counts the memory of the process that forks into the child's peak, and
    the test process is large; the wrapper is a few MB."""
    done = subprocess.run([sys.executable, "-c", _PEAK_WRAPPER, *command], capture_output=True, text=True,
                          timeout=600, **popen)
    lines = done.stdout.splitlines()
    returncode, peak_kb = lines[-1].split()
    return int(returncode), "\n".join(lines[:-1]), done.stderr, int(peak_kb) / 1024


def run_measured(repo: Path, **arguments) -> dict:
    """:func:`measured_download` in a new interpreter run from the checkout ``repo``: its error line,
    seconds, and peak resident memory in MB (``peak_mb``, :func:`peak_of`)."""
    code = ("import json, sys\nfrom tests.download_fixtures import measured_download\n"
            "print(json.dumps(measured_download(**json.loads(sys.argv[1]))))")
    env = {k: v for k, v in os.environ.items() if k != "UCI_MIRROR" and k not in PROXY_VARIABLES}
    returncode, out, err, peak_mb = peak_of([sys.executable, "-c", code, json.dumps(arguments)], cwd=repo, env=env)
    assert returncode == 0, err
    return {**json.loads(out.splitlines()[-1]), "peak_mb": peak_mb}
