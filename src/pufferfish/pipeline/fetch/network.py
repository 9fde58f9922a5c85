"""The network path: an HTTP(S) body streamed to a file under a connect timeout, a read
timeout and a total deadline, capped and checked complete.

:func:`stream_url` copies a body with :func:`~pufferfish.pipeline.fetch.stream.stage`
(hashed and counted as it arrives; a ``Content-Length`` over the cap is refused before the
body is read, and a body that goes past the cap without declaring it is stopped there).
Each limit of :class:`Timeouts` refuses in one line, ``url <URL> did not answer within N s
(...)``, and nothing is left behind: the connection may take ``connect`` seconds, it may
then stay silent ``read`` seconds at a time, and the whole request, redirects included, may
last ``total`` seconds. A body shorter than its ``Content-Length`` (a connection cut) is
refused too. ``PUFFERFISH_DOWNLOAD_TIMEOUTS=connect,read,total`` (seconds) overrides the
defaults (:meth:`Timeouts.from_env`): for a slow link, or to make the tests' short.

Requests go through :mod:`urllib.request` (its proxies of ``https_proxy`` and ``no_proxy``,
its redirects) with the certificate store ucimlrepo uses (certifi's).
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import math
import os
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from pufferfish.errors import ConfigError, DownloadError, PufferfishError
from pufferfish.pipeline.fetch.messages import byte_size, one_line
from pufferfish.pipeline.fetch.mirror import WAY_OUT
from pufferfish.pipeline.fetch.stream import CHUNK_BYTES, SizeCap, Staged, stage

__all__ = ["TIMEOUTS_ENV", "NETWORK", "Timeouts", "stream_url", "read_url"]

log = logging.getLogger(__name__)

#: environment variable overriding the timeouts: ``connect,read,total`` in seconds
TIMEOUTS_ENV = "PUFFERFISH_DOWNLOAD_TIMEOUTS"
#: what ``Provenance.read_from`` says when the bytes came over the network
NETWORK = "network"


@dataclass(frozen=True)
class Timeouts:
    """How long a download may wait, in seconds.

    Attributes:
        connect: to open the connection (TCP, and TLS for https).
        read: of silence while waiting for the answer or the next bytes of the body.
        total: the whole request, from the first connection to the last byte (redirects included).
    """

    connect: float = 30.0
    read: float = 60.0
    total: float = 1800.0

    def __post_init__(self):
        for name in ("connect", "read", "total"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ConfigError(f"download timeouts: {name} = {value!r}: must be a finite number of seconds > 0")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Timeouts:
        """The timeouts of ``$PUFFERFISH_DOWNLOAD_TIMEOUTS`` (``connect,read,total``), else the defaults.

        Parameters
        ----------
        environ : collections.abc.Mapping, optional
            The environment (``None``: :data:`os.environ`).

        Returns
        -------
        Timeouts
            The timeouts.

        Raises
        ------
        ConfigError
            The variable is set but is not three numbers > 0 separated by commas.
        """
        value = (os.environ if environ is None else environ).get(TIMEOUTS_ENV, "").strip()
        if not value:
            return cls()
        try:
            connect, read, total = (float(part) for part in value.split(","))
        except ValueError:
            raise ConfigError(f"{TIMEOUTS_ENV}={value!r}: must be connect,read,total in seconds, "
                              "e.g. 30,60,1800") from None
        try:
            return cls(connect, read, total)
        except ConfigError as err:
            raise ConfigError(f"{TIMEOUTS_ENV}={value!r}: {err}") from None


def stream_url(url: str, path: str | os.PathLike, *, dataset: str, cap: SizeCap,
               timeouts: Timeouts | None = None) -> Staged:
    """GET ``url`` and write its body to the new file ``path``: hashed, counted, capped, complete.

    Parameters
    ----------
    url : str
        An ``http`` or ``https`` URL.
    path : str or os.PathLike
        The file to create (it must not exist; removed again if the download fails).
    dataset : str
        The dataset's key (in messages).
    cap : SizeCap
        The most bytes the body may hold.
    timeouts : Timeouts, optional
        The limits (``None``: :meth:`Timeouts.from_env`).

    Returns
    -------
    Staged
        The file, its size and its SHA-256.

    Raises
    ------
    DownloadError
        The URL cannot be reached or answers with an HTTP error, a limit of ``timeouts``
        passed, the body is over the cap, or it ended before its ``Content-Length``.
    """
    what = f"the body of {url}"
    with _Request(url, dataset=dataset, timeouts=timeouts) as request:
        cap.check_declared(what, request.declared)
        staged = stage(request.chunks(), path, cap=cap, what=what)
        request.check_complete(staged.size)
    return staged


def read_url(url: str, *, dataset: str, max_bytes: int, timeouts: Timeouts | None = None) -> bytes:
    """GET a short answer (an API's JSON) into memory, at most ``max_bytes`` of it.

    Parameters
    ----------
    url : str
        An ``http`` or ``https`` URL.
    dataset : str
        The dataset's key (in messages).
    max_bytes : int
        The most bytes the answer may hold.
    timeouts : Timeouts, optional
        The limits (``None``: :meth:`Timeouts.from_env`).

    Returns
    -------
    bytes
        The body.

    Raises
    ------
    DownloadError
        As :func:`stream_url`, the answer being over ``max_bytes``.
    """
    too_long = DownloadError(f"dataset {dataset}: the answer of {url} is longer than {byte_size(max_bytes)}: "
                             "not the short answer expected")
    with _Request(url, dataset=dataset, timeouts=timeouts) as request:
        if (request.declared or 0) > max_bytes:
            raise too_long
        body = bytearray()
        for chunk in request.chunks():
            body += chunk
            if len(body) > max_bytes:
                raise too_long
        request.check_complete(len(body))
    return bytes(body)


# --------------------------------------------------------------------------------------
# one request: the clock of its limits and the connection classes that obey it
# --------------------------------------------------------------------------------------

class _Clock:
    """The limits of one request: the socket to arm before each wait, and which limit ran out."""

    def __init__(self, timeouts: Timeouts):
        self.timeouts = timeouts
        self.start = time.monotonic()
        self.sock = None
        self.limit = ("connect", timeouts.connect)
        self.received = 0

    def budget(self, kind: str) -> float:
        """Seconds the next wait of ``kind`` (``connect`` or ``read``) may last: the smaller of its
        timeout and what is left of the total; a :class:`TimeoutError` once nothing is left."""
        seconds, left = getattr(self.timeouts, kind), self.timeouts.total - (time.monotonic() - self.start)
        self.limit = (kind, seconds) if seconds <= left else ("total", self.timeouts.total)
        if left <= 0:
            raise TimeoutError("total deadline")
        return min(seconds, left)

    def arm(self, kind: str) -> None:
        if self.sock is not None:
            self.sock.settimeout(self.budget(kind))

    def refusal(self, dataset: str, url: str) -> DownloadError:
        kind, seconds = self.limit
        why = {"connect": "connect timeout", "read": f"read timeout, silent after {self.received} bytes",
               "total": f"total deadline, {self.received} bytes received"}[kind]
        return DownloadError(f"dataset {dataset}: url {url} did not answer within {seconds:g} s ({why}; "
                             f"{TIMEOUTS_ENV}=connect,read,total sets the limits); {WAY_OUT}")


class _Timed:
    """A connection that, once connected, hands its socket to the clock and waits by its read budget."""

    def __init__(self, *args, clock: _Clock, **kwargs):
        self.clock = clock
        super().__init__(*args, **kwargs)

    def connect(self):
        super().connect()
        self.clock.sock = self.sock
        self.clock.arm("read")


class _TimedHTTPConnection(_Timed, http.client.HTTPConnection):
    pass


class _TimedHTTPSConnection(_Timed, http.client.HTTPSConnection):
    pass


class _TimedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, clock: _Clock):
        super().__init__()
        self.clock = clock

    def http_open(self, req):
        return self.do_open(_TimedHTTPConnection, req, clock=self.clock)


class _TimedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, clock: _Clock, context: ssl.SSLContext):
        super().__init__(context=context)
        self.clock, self.ssl_context = clock, context

    def https_open(self, req):
        return self.do_open(_TimedHTTPSConnection, req, context=self.ssl_context, clock=self.clock)


class _Request(contextlib.AbstractContextManager):
    """One GET under :class:`Timeouts`; every failure inside the ``with`` block becomes one line."""

    def __init__(self, url: str, *, dataset: str, timeouts: Timeouts | None):
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme not in ("http", "https"):
            raise DownloadError(f"dataset {dataset}: cannot download {url}: only http and https URLs can be")
        self.url, self.dataset = url, dataset
        self.clock = _Clock(Timeouts.from_env() if timeouts is None else timeouts)
        self.response, self.declared = None, None

    def __enter__(self):
        log.info("dataset %s: downloading %s", self.dataset, self.url)
        opener = urllib.request.build_opener(_TimedHTTPHandler(self.clock),
                                             _TimedHTTPSHandler(self.clock, _ssl_context()))
        try:
            self.response = opener.open(self.url, timeout=self.clock.budget("connect"))
            length = self.response.headers.get("Content-Length")
            self.declared = int(length) if length is not None and length.strip().isdigit() else None
        except BaseException as err:
            self.__exit__(type(err), err, err.__traceback__)
            raise
        return self

    def chunks(self) -> Iterator[bytes]:
        """The body, a chunk at a time, each wait armed with the clock's budget."""
        while True:
            self.clock.arm("read")
            chunk = self.response.read1(CHUNK_BYTES)
            if not chunk:
                return
            self.clock.received += len(chunk)
            yield chunk

    def check_complete(self, size: int) -> None:
        if self.declared is not None and size < self.declared:
            raise DownloadError(f"dataset {self.dataset}: url {self.url} was cut short: {size} of the "
                                f"{self.declared} bytes of its Content-Length received; {WAY_OUT}")

    def __exit__(self, kind, err, traceback):
        if self.response is not None:
            self.response.close()
            self.response = None
        if err is None or isinstance(err, PufferfishError) or not isinstance(err, Exception):
            return None
        refusal = self._refusal(err)
        if refusal is None:
            return None
        raise refusal from err

    def _refusal(self, err: Exception) -> DownloadError:
        dataset, url = self.dataset, self.url
        if isinstance(err, urllib.error.HTTPError):
            err.close()
            return DownloadError(f"dataset {dataset}: cannot download {url} (HTTP {err.code} "
                                 f"{one_line(err.reason)}); {WAY_OUT}")
        cause = err.reason if isinstance(err, urllib.error.URLError) else err
        if isinstance(cause, TimeoutError):
            return self.clock.refusal(dataset, url)
        if isinstance(err, http.client.IncompleteRead):
            return DownloadError(f"dataset {dataset}: url {url} was cut short after {self.clock.received} bytes "
                                 f"({one_line(err)}); {WAY_OUT}")
        if isinstance(err, (OSError, http.client.HTTPException)):
            reason = one_line(cause) or type(cause).__name__
            return DownloadError(f"dataset {dataset}: cannot reach {url} ({reason}); {WAY_OUT}")
        return None


def _ssl_context() -> ssl.SSLContext:
    """The certificate store ucimlrepo uses (certifi's), or the system's if certifi is absent."""
    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi comes with ucimlrepo
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())
