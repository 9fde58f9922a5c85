"""Downloads in bounded memory (issue 42): caps counted while streaming, the zip-bomb check,
timeouts, bodies cut short; each refused in one line, nothing left behind.

The archives are built here (``tests/download_fixtures.py``: a zip bomb takes about 1/338 of
what it expands to on disk) and the network is a local HTTP site on 127.0.0.1 with short
timeouts. Every expected message is written out from the bytes built (sizes read back with
:mod:`zipfile`, the caps chosen here), not from the code under test. The tests marked
``slow`` expand or stream hundreds of MB (or the 3 GB bomb through Snakemake) and measure
the peak memory of a fresh interpreter.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import socket
import sys
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from pufferfish.errors import ConfigError, DownloadError, OutputError
from pufferfish.pipeline.config import load_schema, load_settings, validate_config
from pufferfish.pipeline.fetch import DEFAULT_MAX_BYTES, MAX_RATIO, SizeCap, Timeouts, download
from pufferfish.pipeline.fetch.stream import stage
from tests.download_fixtures import (HEART_LINE, cut_short, drips, endless, heart_lines, no_network, peak_of,
                                     run_measured, site, stalls, write_zip_bomb)

_ = site  # a fixture
REPO = Path(__file__).resolve().parents[2]
SITE = "https://archive.ics.uci.edu"
HEART_URL = f"{SITE}/static/public/45/heart+disease.zip"
MEMBER = "processed.hungarian.data"
NAMES = ["age", "sex", "cp", "trestbps", "chol", "fbs", "restecg", "thalach", "exang", "oldpeak", "slope", "ca",
         "thal", "num"]
SHORT = Timeouts(connect=1.0, read=0.5, total=3.0)
TOO_LONG = "(datasets.heart.max_bytes; raise it if the data are meant to be that large)"


def heart_spec(**changes) -> dict:
    spec = {"source": "archive", "url": HEART_URL, "member": MEMBER, "rows": 294, "columns": ["age", "sex", "chol"],
            "read_csv": {"header": None, "names": NAMES, "na_values": ["?"]}}
    return {**spec, **changes}


@pytest.fixture
def cache(tmp_path):
    path = tmp_path / "data" / "raw"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    root = tmp_path / "mirror"
    (root / "static/public/45").mkdir(parents=True)
    monkeypatch.setenv("UCI_MIRROR", str(root))
    no_network(monkeypatch)
    return root


def outputs(cache: Path, name: str = "heart") -> dict:
    return {"csv_path": cache / f"{name}.csv", "json_path": cache / f"{name}.json"}


def refused(call) -> str:
    """The one-line message of the DownloadError ``call()`` raises."""
    with pytest.raises(DownloadError) as err:
        call()
    message = str(err.value)
    assert "\n" not in message
    return message


@pytest.fixture
def no_extraction(monkeypatch):
    """Any member opened for extraction fails the test: the refusal must come first."""
    def refuse(*args, **kwargs):
        raise AssertionError("a member was opened for extraction")

    monkeypatch.setattr(zipfile.ZipFile, "open", refuse)


# --------------------------------------------------------------------------------------
# the cap: declared in config, default 1 GiB, counted on the bytes
# --------------------------------------------------------------------------------------

def test_default_cap_is_the_schemas_and_one_gib():
    schema = load_schema()
    entry = schema["properties"]["datasets"]["additionalProperties"]["properties"]["max_bytes"]
    assert entry["default"] == DEFAULT_MAX_BYTES == 1024 ** 3 and entry["minimum"] == 1
    assert SizeCap.of("heart", heart_spec()) == SizeCap("heart", 1024 ** 3)
    assert SizeCap.of("heart", heart_spec(max_bytes=5)) == SizeCap("heart", 5)


def test_the_shipped_config_gets_the_default_and_takes_max_bytes():
    config = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    config["datasets"]["adult"]["max_bytes"] = 10 ** 8
    settings = load_settings(config)
    assert settings.datasets["adult"].max_bytes == 10 ** 8
    assert settings.datasets["hungarian_heart"].max_bytes == 1024 ** 3   # the schema's default, filled in
    assert config["datasets"]["hungarian_heart"]["max_bytes"] == 1024 ** 3   # what the download job's spec holds
    config["datasets"]["adult"]["max_bytes"] = 0
    with pytest.raises(ConfigError, match=r"^config: datasets\.adult\.max_bytes = 0: must be >= 1$"):
        validate_config(config)


@pytest.mark.parametrize("value", [0, -1, 1.5, "1", True])
def test_a_bad_max_bytes_is_one_line_naming_the_key(value):
    with pytest.raises(ConfigError) as err:
        SizeCap.of("heart", heart_spec(max_bytes=value))
    assert str(err.value) == f"dataset heart: datasets.heart.max_bytes = {value!r}: must be an integer >= 1"


def test_stage_hashes_counts_and_stops_past_the_cap(tmp_path):
    data = bytes(range(256)) * 40                      # 10240 bytes, in chunks of 1000
    chunks = [data[i:i + 1000] for i in range(0, len(data), 1000)]
    staged = stage(iter(chunks), tmp_path / "exact", cap=SizeCap("heart", 10240), what="member m of u")
    assert (staged.size, staged.sha256) == (10240, hashlib.sha256(data).hexdigest())
    assert staged.path.read_bytes() == data
    pulled = []

    def counted():
        for chunk in chunks:
            pulled.append(len(chunk))
            yield chunk

    message = refused(lambda: stage(counted(), tmp_path / "over", cap=SizeCap("heart", 10239), what="member m of u"))
    assert message == ("dataset heart: member m of u goes on past 10239 bytes: stopped there; over the cap of "
                       f"10239 bytes {TOO_LONG}")
    assert sum(pulled) == 10240 and not (tmp_path / "over").exists()   # stopped at the chunk that passed it
    message = refused(lambda: stage(iter([b"x" * 2048]), tmp_path / "kib", cap=SizeCap("heart", 1024), what="w"))
    assert "over the cap of 1024 bytes (1 KiB) (datasets.heart.max_bytes;" in message


def test_stage_names_its_own_file_when_it_cannot_be_written(tmp_path):
    """The copy's own failure (here its directory is a file) is an OutputError naming it, not a fault of the source."""
    (tmp_path / "blocked").write_text("a file")
    with pytest.raises(OutputError) as err:
        stage(iter([b"x"]), tmp_path / "blocked" / "copy.part", cap=SizeCap("heart", 10), what="w")
    assert str(err.value) == f"cannot write {tmp_path / 'blocked' / 'copy.part'}: {tmp_path / 'blocked'} is a file, " \
                             "not a directory"


# --------------------------------------------------------------------------------------
# the zip-bomb check, before a byte is extracted
# --------------------------------------------------------------------------------------

def _sizes(path: Path, name: str) -> tuple[int, int]:
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(name)
        return info.compress_size, info.file_size


def test_a_zip_bomb_is_refused_before_extraction(mirror, cache, no_extraction):
    bomb = write_zip_bomb(mirror / "static/public/45/heart+disease.zip", MEMBER, 300_000_000,
                          extra={"heart-disease.names": b"14 attributes\n"})
    packed, size = _sizes(bomb, MEMBER)
    assert size // packed > MAX_RATIO and bomb.stat().st_size < 1_000_000     # 300 MB in under 1 MB
    message = refused(lambda: download("heart", heart_spec(), **outputs(cache)))
    assert message == (f"dataset heart: member {MEMBER} of {bomb} would expand {packed} bytes to {size} "
                       f"(compression ratio {size / packed:.0f}, over 100): refused before extraction as a zip bomb")
    assert list(cache.iterdir()) == []


def test_a_nested_zip_bomb_is_refused_at_its_level(mirror, cache, tmp_path):
    inner = write_zip_bomb(tmp_path / "inner.zip", "student-mat.csv", 200_000_000)
    outer = mirror / "static/public/45/heart+disease.zip"
    with zipfile.ZipFile(outer, "w") as zf:
        zf.write(inner, "student.zip")
    packed, size = _sizes(inner, "student-mat.csv")
    message = refused(lambda: download("heart", heart_spec(member=["student.zip", "student-mat.csv"]),
                                       **outputs(cache)))
    assert message == (f"dataset heart: member student-mat.csv of member student.zip of {outer} would expand "
                       f"{packed} bytes to {size} (compression ratio {size / packed:.0f}, over 100): refused before "
                       "extraction as a zip bomb")
    assert list(cache.iterdir()) == []


def test_a_member_under_the_ratio_but_over_the_cap_is_refused_before_extraction(mirror, cache, no_extraction):
    archive = write_zip_bomb(mirror / "static/public/45/heart+disease.zip", MEMBER, 3_000_000, lines=heart_lines(500))
    packed, size = _sizes(archive, MEMBER)
    assert size / packed < MAX_RATIO and size > 2 ** 21
    message = refused(lambda: download("heart", heart_spec(max_bytes=2 ** 21), **outputs(cache)))
    assert message == (f"dataset heart: member {MEMBER} of {archive} declares {size} bytes: refused before reading "
                       f"it; over the cap of 2097152 bytes (2 MiB) {TOO_LONG}")
    assert list(cache.iterdir()) == []


def test_a_member_whose_archive_understates_its_size_gets_no_further(mirror, cache):
    """The archive declares 1000 bytes for 3 MB: zipfile stops at 1000 and the CRC refuses them."""
    archive = write_zip_bomb(mirror / "static/public/45/heart+disease.zip", MEMBER, 3_000_000, declared=1000)
    message = refused(lambda: download("heart", heart_spec(max_bytes=2 ** 21), **outputs(cache)))
    assert message == (f"dataset heart: member {MEMBER} of {archive} cannot be extracted "
                       f"(Bad CRC-32 for file '{MEMBER}')")
    assert list(cache.iterdir()) == []


def test_a_small_member_may_compress_well(mirror, cache):
    """Below 1 MiB declared, a ratio over 100 cannot hurt: the member is read (and here its rows checked)."""
    data = HEART_LINE * 294                               # 10584 bytes, deflated about 150 times
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(MEMBER, data)
    (mirror / "static/public/45/heart+disease.zip").write_bytes(buffer.getvalue())
    packed, size = _sizes(mirror / "static/public/45/heart+disease.zip", MEMBER)
    assert size / packed > MAX_RATIO
    record = download("heart", heart_spec(sha256=hashlib.sha256(data).hexdigest()), **outputs(cache))
    assert record.rows == 294 and record.sha256_verified
    assert sorted(p.name for p in cache.iterdir()) == ["heart.csv", "heart.json"]


def test_a_mirror_file_over_the_cap_is_stopped(mirror, cache):
    path = mirror / "static/public/45/heart+disease.zip"
    path.write_bytes(b"PK" * 600_000)
    message = refused(lambda: download("heart", heart_spec(max_bytes=2 ** 20), **outputs(cache)))
    assert message == (f"dataset heart: {path} (the mirror's {HEART_URL}) goes on past 1048576 bytes: stopped "
                       f"there; over the cap of 1048576 bytes (1 MiB) {TOO_LONG}")
    assert list(cache.iterdir()) == []


def test_the_bomb_download_is_one_line_in_bounded_memory(tmp_path):
    """Issue 42's bomb at a tenth of its size, in a fresh interpreter: one line, small peak, nothing left."""
    mirror, cache = tmp_path / "mirror", tmp_path / "data" / "raw"
    (mirror / "static/public/45").mkdir(parents=True)
    cache.mkdir(parents=True)
    bomb = write_zip_bomb(mirror / "static/public/45/heart+disease.zip", MEMBER, 300_000_000)
    result = run_measured(REPO, dataset="heart", spec=heart_spec(), cache=str(cache), mirror=str(mirror))
    assert re.fullmatch(rf"dataset heart: member {MEMBER} of {re.escape(str(bomb))} would expand \d+ bytes to "
                        r"\d+ \(compression ratio \d+, over 100\): refused before extraction as a zip bomb",
                        result["error"])
    assert result["peak_mb"] < 200 and result["seconds"] < 60
    assert list(cache.iterdir()) == []


# --------------------------------------------------------------------------------------
# the network: a local site, short timeouts
# --------------------------------------------------------------------------------------

def _timed(call):
    start = time.monotonic()
    message = refused(call)
    return message, time.monotonic() - start


def test_a_body_over_the_cap_is_stopped_while_counting(site, cache):
    """No Content-Length: the cap is counted on what arrives."""
    site.pages["/endless.zip"] = endless()
    url = site.url("/endless.zip")
    message, seconds = _timed(lambda: download("heart", heart_spec(url=url, max_bytes=4 * 2 ** 20),
                                               **outputs(cache), timeouts=SHORT))
    assert message == (f"dataset heart: the body of {url} goes on past 4194304 bytes: stopped there; over the cap "
                       f"of 4194304 bytes (4 MiB) {TOO_LONG}")
    assert seconds < SHORT.total and list(cache.iterdir()) == []


def test_a_body_declaring_more_than_the_cap_is_refused_before_reading(site, cache):
    site.pages["/huge.zip"] = endless(declared=10 * 2 ** 30)
    url = site.url("/huge.zip")
    message = refused(lambda: download("heart", heart_spec(url=url), **outputs(cache), timeouts=SHORT))
    assert message == (f"dataset heart: the body of {url} declares 10737418240 bytes: refused before reading it; "
                       f"over the cap of 1073741824 bytes (1 GiB) {TOO_LONG}")
    assert list(cache.iterdir()) == []


def test_a_stalled_body_is_refused_by_the_read_timeout(site, cache):
    site.pages["/stalls.zip"] = stalls(b"PK\x03\x04", length=1000)
    url = site.url("/stalls.zip")
    message, seconds = _timed(lambda: download("heart", heart_spec(url=url), **outputs(cache), timeouts=SHORT))
    assert message == (f"dataset heart: url {url} did not answer within 0.5 s (read timeout, silent after 4 bytes; "
                       "PUFFERFISH_DOWNLOAD_TIMEOUTS=connect,read,total sets the limits); set UCI_MIRROR to a local "
                       "mirror of archive.ics.uci.edu (see README)")
    assert 0.5 <= seconds < 3.5 and list(cache.iterdir()) == []


def test_a_silent_server_is_refused_by_the_read_timeout(site, cache):
    site.pages["/silent.zip"] = stalls(b"", length=-1)   # accepts, never answers
    url = site.url("/silent.zip")
    message, seconds = _timed(lambda: download("heart", heart_spec(url=url), **outputs(cache), timeouts=SHORT))
    assert message.startswith(f"dataset heart: url {url} did not answer within 0.5 s (read timeout, silent after "
                              "0 bytes;")
    assert 0.5 <= seconds < 3.5 and list(cache.iterdir()) == []


def test_a_dripping_body_is_refused_by_the_total_deadline(site, cache):
    """A line every 0.1 s: the read timeout (0.5 s) never fires, the total deadline (1.5 s) does."""
    site.pages["/drips.zip"] = drips(0.1)
    url = site.url("/drips.zip")
    limits = Timeouts(connect=1.0, read=0.5, total=1.5)
    message, seconds = _timed(lambda: download("heart", heart_spec(url=url), **outputs(cache), timeouts=limits))
    assert re.fullmatch(rf"dataset heart: url {re.escape(url)} did not answer within 1.5 s \(total deadline, \d+ "
                        r"bytes received; PUFFERFISH_DOWNLOAD_TIMEOUTS=connect,read,total sets the limits\); set "
                        r"UCI_MIRROR .*", message)
    received = int(re.search(r"deadline, (\d+) bytes", message).group(1))
    assert received >= 5 * len(HEART_LINE)
    assert 1.5 <= seconds < 4.5 and list(cache.iterdir()) == []


def test_a_stall_near_the_deadline_ends_at_the_deadline(site, cache):
    """A wait never outlasts the total: with 60 s of read timeout and 1.5 s in all, a stall ends at 1.5 s."""
    site.pages["/stalls.zip"] = stalls(b"PK\x03\x04", length=1000)
    url = site.url("/stalls.zip")
    limits = Timeouts(connect=1.0, read=60.0, total=1.5)
    message, seconds = _timed(lambda: download("heart", heart_spec(url=url), **outputs(cache), timeouts=limits))
    assert message.startswith(f"dataset heart: url {url} did not answer within 1.5 s (total deadline, 4 bytes "
                              "received; ")
    assert 1.5 <= seconds < 4.5 and list(cache.iterdir()) == []


def test_a_server_that_never_accepts_is_refused_by_the_connect_timeout(site, cache):
    """A listening socket whose queue is full (Linux drops the next SYN): the connection never opens."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    queued = socket.create_connection(("127.0.0.1", port))
    url = f"http://127.0.0.1:{port}/heart.zip"
    try:
        message, seconds = _timed(lambda: download("heart", heart_spec(url=url), **outputs(cache), timeouts=SHORT))
    finally:
        queued.close()
        server.close()
    assert message == (f"dataset heart: url {url} did not answer within 1 s (connect timeout; "
                       "PUFFERFISH_DOWNLOAD_TIMEOUTS=connect,read,total sets the limits); set UCI_MIRROR to a local "
                       "mirror of archive.ics.uci.edu (see README)")
    assert 1.0 <= seconds < 4.0 and list(cache.iterdir()) == []


def test_a_body_cut_short_is_refused(site, cache):
    body = b"PK\x03\x04" + b"\0" * 96
    site.pages["/short.zip"] = cut_short(body, 5000)
    url = site.url("/short.zip")
    message = refused(lambda: download("heart", heart_spec(url=url), **outputs(cache), timeouts=SHORT))
    assert message == (f"dataset heart: url {url} was cut short: 100 of the 5000 bytes of its Content-Length "
                       "received; set UCI_MIRROR to a local mirror of archive.ics.uci.edu (see README)")
    assert list(cache.iterdir()) == []


def test_an_endless_api_answer_is_refused(site, cache):
    site.pages["/api/dataset?id=2"] = endless()
    spec = {"source": "ucimlrepo", "uci_id": 2, "rows": 1, "columns": ["age"]}
    message = refused(lambda: download("adult", spec, **outputs(cache, "adult"), timeouts=SHORT))
    assert message == (f"dataset adult: the answer of {site.url('/api/dataset?id=2')} is longer than 4194304 bytes "
                       "(4 MiB): not the short answer expected")
    assert list(cache.iterdir()) == []


def test_timeouts_from_the_environment(site, cache, monkeypatch):
    assert Timeouts.from_env({}) == Timeouts(30.0, 60.0, 1800.0)
    assert Timeouts.from_env({"PUFFERFISH_DOWNLOAD_TIMEOUTS": " 2, 0.25 ,9 "}) == Timeouts(2.0, 0.25, 9.0)
    for bad, why in [("1,2", "must be connect,read,total in seconds, e.g. 30,60,1800"),
                     ("1,x,3", "must be connect,read,total in seconds, e.g. 30,60,1800"),
                     ("1,0,3", "download timeouts: read = 0.0: must be a finite number of seconds > 0"),
                     ("1,2,inf", "download timeouts: total = inf: must be a finite number of seconds > 0")]:
        with pytest.raises(ConfigError) as err:
            Timeouts.from_env({"PUFFERFISH_DOWNLOAD_TIMEOUTS": bad})
        assert str(err.value) == f"PUFFERFISH_DOWNLOAD_TIMEOUTS={bad!r}: {why}"
    # download() without timeouts reads the variable
    monkeypatch.setenv("PUFFERFISH_DOWNLOAD_TIMEOUTS", "1,0.3,5")
    site.pages["/stalls.zip"] = stalls(b"PK", length=1000)
    url = site.url("/stalls.zip")
    message, seconds = _timed(lambda: download("heart", heart_spec(url=url), **outputs(cache)))
    assert "did not answer within 0.3 s (read timeout, silent after 2 bytes;" in message and seconds < 2


def test_only_http_urls_are_downloaded(site, cache, tmp_path):
    (tmp_path / "x.zip").write_bytes(b"PK")
    message = refused(lambda: download("heart", heart_spec(url=(tmp_path / "x.zip").as_uri()), **outputs(cache)))
    assert message == f"dataset heart: cannot download {(tmp_path / 'x.zip').as_uri()}: only http and https URLs can be"


def test_scratch_left_by_a_killed_download_is_removed(mirror, cache):
    stale = cache / ".heart.download-abc123"
    stale.mkdir()
    (stale / "archive.part").write_bytes(b"half")
    (cache / ".other.download-x").mkdir()                  # another dataset's: not touched
    refused(lambda: download("heart", heart_spec(), **outputs(cache)))   # not in the mirror
    assert sorted(p.name for p in cache.iterdir()) == [".other.download-x"]


# --------------------------------------------------------------------------------------
# slow: hundreds of MB streamed, and the 3 GB bomb through Snakemake
# --------------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_large_member_is_streamed_in_bounded_memory(tmp_path):
    """400 MB under the ratio and the cap, pinned to other bytes: extracted in chunks, hashed, refused."""
    mirror, cache = tmp_path / "mirror", tmp_path / "data" / "raw"
    (mirror / "static/public/45").mkdir(parents=True)
    cache.mkdir(parents=True)
    lines = heart_lines(500)
    archive = write_zip_bomb(mirror / "static/public/45/heart+disease.zip", MEMBER, 400_000_000, lines=lines)
    packed, size = _sizes(archive, MEMBER)
    assert size / packed < MAX_RATIO
    digest = hashlib.sha256()
    block = lines * (1_048_576 // len(lines))
    for _ in range(size // len(block)):
        digest.update(block)
    digest.update(lines * ((size % len(block)) // len(lines)))
    result = run_measured(REPO, dataset="heart", spec=heart_spec(sha256="0" * 64), cache=str(cache),
                          mirror=str(mirror))
    assert result["error"] == (f"dataset heart: sha256 mismatch for member {MEMBER} of {HEART_URL}: expected "
                               f"{'0' * 64}, found {digest.hexdigest()}")
    assert result["peak_mb"] < 200
    assert list(cache.iterdir()) == []


@pytest.mark.slow
def test_an_endless_body_is_streamed_in_bounded_memory(tmp_path):
    cache = tmp_path / "data" / "raw"
    cache.mkdir(parents=True)
    result = run_measured(REPO, dataset="heart", spec=heart_spec(max_bytes=300 * 2 ** 20), cache=str(cache),
                          serve_endless=True)
    assert re.fullmatch(r"dataset heart: the body of http://127\.0\.0\.1:\d+/endless\.zip goes on past 314572800 "
                        rf"bytes: stopped there; over the cap of 314572800 bytes \(300 MiB\) {re.escape(TOO_LONG)}",
                        result["error"])
    assert result["peak_mb"] < 200
    assert list(cache.iterdir()) == []


@pytest.mark.slow
def test_the_3gb_bomb_through_snakemake(tmp_path):
    """Issue 42's done-when: a mirror serving a 3 GB member in a 9 MB archive; the download of
    hungarian_heart by Snakemake ends in one line within 60 s, the whole run under 500 MB
    (its largest process), the download itself (the job's call, in a fresh interpreter) under
    200 MB, nothing of it in data/raw/."""
    mirror, work = tmp_path / "mirror", tmp_path / "work"
    (mirror / "static/public/45").mkdir(parents=True)
    work.mkdir()
    bomb = write_zip_bomb(mirror / "static/public/45/heart+disease.zip", MEMBER, 3_000_000_000 + len(HEART_LINE),
                          extra={"heart-disease.names": b"14 attributes\n"})
    assert 8_000_000 < bomb.stat().st_size < 10_000_000 and _sizes(bomb, MEMBER)[1] >= 3_000_000_000
    env = {**os.environ, "UCI_MIRROR": str(mirror)}
    snakemake = [str(Path(sys.executable).parent / "snakemake"), "data/raw/hungarian_heart.csv", "--cores", "1",
                 "--directory", str(work), "--snakefile", str(REPO / "Snakefile"), "--configfile",
                 str(REPO / "config.yaml")]
    start = time.monotonic()
    returncode, out, err, peak_mb = peak_of(snakemake, env=env)     # the largest process of the run
    seconds = time.monotonic() - start
    output = out + err
    errors = [line for line in output.splitlines() if line.startswith("error: ")]
    assert returncode != 0 and "Traceback" not in output
    size = _sizes(bomb, MEMBER)[1]
    assert errors == [f"error: dataset hungarian_heart: member {MEMBER} of {bomb} declares {size} bytes: refused "
                      "before reading it; over the cap of 1073741824 bytes (1 GiB) "
                      "(datasets.hungarian_heart.max_bytes; raise it if the data are meant to be that large)"], output
    assert seconds < 60
    assert peak_mb < 500, peak_mb
    raw = work / "data" / "raw"
    assert not raw.exists() or list(raw.iterdir()) == []
    job = run_measured(REPO, dataset="hungarian_heart", spec=heart_spec(), cache=str(raw), mirror=str(mirror))
    assert job["error"] == errors[0].removeprefix("error: ") and job["peak_mb"] < 200 and job["seconds"] < 60
    assert list(raw.iterdir()) == []
    shutil.rmtree(mirror)
