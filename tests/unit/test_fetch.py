"""pufferfish.pipeline.fetch: mirror and network paths, checksums, row/column checks, atomic writes.

Every fixture is built here in ``tmp_path`` (a tiny fake mirror); the network is a local HTTP
site on 127.0.0.1 (``tests/download_fixtures.py``) standing for UCI. Only ``test_real_mirror``
reads real data, and only when ``UCI_MIRROR`` is set. The limits (caps, the zip-bomb check,
timeouts, bodies cut short) are tested in ``test_fetch_limits.py``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from pufferfish.pipeline import fetch
from pufferfish.errors import ConfigError, DataError, DownloadError
from pufferfish.pipeline.fetch import Provenance, Timeouts, download, fetch_dataset, mirror_path
from tests.download_fixtures import no_network, site  # noqa: F401 - site is a fixture

REPO = Path(__file__).resolve().parents[2]
SITE = "https://archive.ics.uci.edu"

# ucimlrepo-style data.csv: CRLF, NaN as missing, no final line break
UCI_CSV = b"age,colour,score\r\n39,red,1.5\r\n50,NaN,2.25\r\n38,blue,NaN"
# an archive member: no header, `?` as missing
MEMBER = b"63,1,233\n67,0,?\n41,1,204\n"
MEMBER_NAME = "processed.tiny.data"
ARCHIVE_URL = f"{SITE}/static/public/45/tiny+archive.zip"


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


ARCHIVE = _zip({MEMBER_NAME: MEMBER, "tiny.names": b"age, sex, chol\n"})


def ucimlrepo_spec(**changes) -> dict:
    spec = {"source": "ucimlrepo", "uci_id": 7, "rows": 3, "columns": ["age", "colour"], "citation": "Tiny (2024)."}
    return {**spec, **changes}


def archive_spec(**changes) -> dict:
    spec = {
        "source": "archive", "url": ARCHIVE_URL, "member": MEMBER_NAME,
        "sha256": hashlib.sha256(MEMBER).hexdigest(), "rows": 3, "columns": ["age", "chol"],
        "read_csv": {"header": None, "names": ["age", "sex", "chol"], "na_values": ["?"]},
        "citation": "Tiny heart (1988).",
    }
    return {**spec, **changes}


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A fake mirror with ucimlrepo id 7 and the archive; UCI_MIRROR points to it, the network is off."""
    root = tmp_path / "mirror"
    (root / "static/public/7").mkdir(parents=True)
    (root / "static/public/7/data.csv").write_bytes(UCI_CSV)
    (root / "static/public/45").mkdir(parents=True)
    (root / "static/public/45/tiny+archive.zip").write_bytes(ARCHIVE)
    monkeypatch.setenv("UCI_MIRROR", str(root))
    no_network(monkeypatch)
    return root


@pytest.fixture
def cache(tmp_path):
    path = tmp_path / "raw"
    path.mkdir()
    return path


def outputs(cache: Path, name: str) -> dict:
    return {"csv_path": cache / f"{name}.csv", "json_path": cache / f"{name}.json"}


# --------------------------------------------------------------------------------------
# mirror hit
# --------------------------------------------------------------------------------------

def test_mirror_ucimlrepo(mirror, cache):
    record = download("tiny", ucimlrepo_spec(), **outputs(cache, "tiny"))
    path = mirror / "static/public/7/data.csv"
    assert record == Provenance(
        dataset="tiny", source="ucimlrepo", url=f"{SITE}/static/public/7/data.csv", uci_id=7,
        sha256=hashlib.sha256(UCI_CSV).hexdigest(), sha256_verified=False, read_from=str(path),
        rows=3, columns=("age", "colour", "score"), citation="Tiny (2024).",
    )
    assert json.loads((cache / "tiny.json").read_text()) == record.to_dict()
    expected = pd.read_csv(io.BytesIO(UCI_CSV))  # what ucimlrepo would hold
    pd.testing.assert_frame_equal(pd.read_csv(cache / "tiny.csv"), expected)
    assert pd.isna(expected.loc[1, "colour"]) and pd.isna(expected.loc[2, "score"])


def test_a_pinned_ucimlrepo_table_is_verified_and_a_wrong_pin_refused(mirror, cache):
    """``sha256`` on a ucimlrepo dataset pins UCI's data.csv: the bytes read must hash to it
    (config.yaml pins adult, bank_marketing, student_performance); a mismatch leaves nothing."""
    digest = hashlib.sha256(UCI_CSV).hexdigest()
    record = download("tiny", ucimlrepo_spec(sha256=digest.upper()), **outputs(cache, "tiny"))
    assert (record.sha256, record.sha256_expected, record.sha256_verified) == (digest, digest, True)
    assert record.sha256_source == "config" and record.sha256_record is None
    assert json.loads((cache / "tiny.json").read_text())["sha256_verified"] is True
    wrong = "f" * 64
    other = cache / "other"
    other.mkdir()
    with pytest.raises(DownloadError) as err:
        download("tiny", ucimlrepo_spec(sha256=wrong), **outputs(other, "tiny"))
    assert str(err.value) == (f"dataset tiny: sha256 mismatch for {SITE}/static/public/7/data.csv: "
                              f"expected {wrong}, found {digest}")
    assert list(other.iterdir()) == []


def test_every_dataset_of_the_shipped_config_is_pinned():
    """CI check: config.yaml pins the bytes of every dataset (archive members and ucimlrepo tables),
    so a run on other bytes stops (the mirror's SHA256SUMS lists the same hashes)."""
    config = yaml.safe_load((Path(__file__).parents[2] / "config.yaml").read_text())
    unpinned = [k for k, spec in config["datasets"].items() if len(str(spec.get("sha256", ""))) != 64]
    assert unpinned == []
    pins = {k: spec["sha256"] for k, spec in config["datasets"].items() if spec["source"] == "ucimlrepo"}
    assert pins == {"adult": "da4124ef31ef9becd31d54b1a496a355e93a517b88cdeb42bec2ca7b5ceb4bfb",
                    "bank_marketing": "94a5cb4b7d461dab12f7f6123723054911fbdd28d84a2c4ec92378af019be686",
                    "student_performance": "a718b07d82ac3c80504a7c51e9836d2d433a0468234aefefe150e986fda16022"}


def test_mirror_archive(mirror, cache):
    record = download("heart", archive_spec(), **outputs(cache, "heart"))
    provenance = json.loads((cache / "heart.json").read_text())
    assert provenance["sha256"] == hashlib.sha256(MEMBER).hexdigest()
    assert provenance["sha256_expected"] == provenance["sha256"]
    assert provenance["sha256_verified"] is True
    assert provenance["archive_sha256"] == hashlib.sha256(ARCHIVE).hexdigest()
    assert provenance["read_from"] == str(mirror / "static/public/45/tiny+archive.zip")
    assert provenance["url"] == ARCHIVE_URL and provenance["member"] == MEMBER_NAME
    assert provenance["rows"] == 3 and provenance["columns"] == ["age", "sex", "chol"]
    assert provenance["citation"] == "Tiny heart (1988)." and provenance["uci_id"] is None
    assert provenance == record.to_dict()
    table = pd.read_csv(cache / "heart.csv")
    assert table["chol"].tolist()[0] == 233 and np.isnan(table["chol"].tolist()[1])  # `?` -> NaN
    assert len(table) == 3  # nothing dropped


def test_mirror_argument_overrides_environment(mirror, cache, monkeypatch):
    monkeypatch.delenv("UCI_MIRROR")
    frame, record = fetch_dataset("tiny", ucimlrepo_spec(), mirror=mirror)
    assert record.read_from == str(mirror / "static/public/7/data.csv") and len(frame) == 3


def test_mirror_path_layout(tmp_path):
    assert mirror_path(tmp_path, f"{SITE}/static/public/45/heart+disease.zip") == \
        tmp_path.resolve() / "static/public/45/heart+disease.zip"
    assert mirror_path(tmp_path, f"{SITE}/static/public/45/heart%2Bdisease.zip").name == "heart+disease.zip"
    for bad in ("https://example.org/x.zip", f"{SITE}/../etc/passwd", f"{SITE}/api/dataset?id=2", f"{SITE}/"):
        with pytest.raises(DownloadError, match="cannot be read from a mirror"):
            mirror_path(tmp_path, bad)


# --------------------------------------------------------------------------------------
# refusals
# --------------------------------------------------------------------------------------

def test_checksum_mismatch_refused_and_nothing_left(mirror, cache):
    wrong = "0" * 64
    with pytest.raises(DownloadError) as err:
        download("heart", archive_spec(sha256=wrong), **outputs(cache, "heart"))
    message = str(err.value)
    assert message == (f"dataset heart: sha256 mismatch for member {MEMBER_NAME} of {ARCHIVE_URL}: "
                       f"expected {wrong}, found {hashlib.sha256(MEMBER).hexdigest()}")
    assert list(cache.iterdir()) == []


@pytest.mark.parametrize("changes, expected", [
    ({"rows": 4}, "dataset tiny: expected 4 rows, found 3"),
    ({"columns": ["age", "height", "weight"]},
     "dataset tiny: columns [height, weight] not found (expected [age, height, weight]; found [age, colour, score])"),
])
def test_rows_or_columns_mismatch_refused(mirror, cache, changes, expected):
    with pytest.raises(DataError) as err:
        download("tiny", ucimlrepo_spec(**changes), **outputs(cache, "tiny"))
    assert str(err.value) == expected
    assert list(cache.iterdir()) == []


def test_archive_rows_mismatch_refused(mirror, cache):
    with pytest.raises(DataError, match="^dataset heart: expected 294 rows, found 3$"):
        download("heart", archive_spec(rows=294), **outputs(cache, "heart"))
    assert list(cache.iterdir()) == []


def test_mirror_set_but_file_missing(mirror, cache):
    with pytest.raises(DownloadError) as err:
        download("other", ucimlrepo_spec(uci_id=222), **outputs(cache, "other"))
    path = mirror / "static/public/222/data.csv"
    assert str(err.value) == (f"dataset other: UCI_MIRROR is set but {path} is not in the mirror "
                              f"(it stands for {SITE}/static/public/222/data.csv)")
    assert list(cache.iterdir()) == []


def test_mirror_archive_without_member(mirror, cache):
    with pytest.raises(DownloadError, match=r"has no member processed\.nothing\.data \(members: \["):
        download("heart", archive_spec(member="processed.nothing.data"), **outputs(cache, "heart"))


def test_mirror_not_a_directory(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("UCI_MIRROR", str(tmp_path / "nowhere"))
    with pytest.raises(DownloadError, match="UCI_MIRROR=.*nowhere is not a directory"):
        download("tiny", ucimlrepo_spec(), **outputs(cache, "tiny"))


def test_incomplete_spec(mirror, cache):
    spec = archive_spec()
    del spec["member"]
    with pytest.raises(ConfigError, match=r"^dataset heart: datasets\.heart\.member is missing$"):
        fetch_dataset("heart", spec)


# --------------------------------------------------------------------------------------
# nested zips: `member: [outer.zip, inner.csv]`
# --------------------------------------------------------------------------------------

INNER = b"school;paid;G3\nGP;no;6\nGP;yes;10\nMS;no;15\nMS;yes;0\n"
NESTED_URL = f"{SITE}/static/public/320/student+performance.zip"
NESTED = _zip({"student.zip": _zip({"student-mat.csv": INNER, "student.txt": b"notes\n"}), "readme.txt": b"x"})


def nested_spec(**changes) -> dict:
    spec = {"source": "archive", "url": NESTED_URL, "member": ["student.zip", "student-mat.csv"],
            "sha256": hashlib.sha256(INNER).hexdigest(), "rows": 4, "columns": ["paid", "G3"],
            "read_csv": {"sep": ";"}}
    return {**spec, **changes}


@pytest.fixture
def nested_mirror(mirror):
    (mirror / "static/public/320").mkdir(parents=True)
    (mirror / "static/public/320/student+performance.zip").write_bytes(NESTED)
    return mirror


def test_nested_member_read_and_recorded(nested_mirror, cache):
    record = download("student", nested_spec(), **outputs(cache, "student"))
    assert record.member == ("student.zip", "student-mat.csv")
    assert record.sha256 == hashlib.sha256(INNER).hexdigest() and record.sha256_verified
    assert record.sha256_source == "config" and record.sha256_record is None
    assert record.archive_sha256 == hashlib.sha256(NESTED).hexdigest()
    provenance = json.loads((cache / "student.json").read_text())
    assert provenance["member"] == ["student.zip", "student-mat.csv"]  # a list in JSON
    table = pd.read_csv(cache / "student.csv")
    assert table["G3"].tolist() == [6, 10, 15, 0] and table["paid"].tolist() == ["no", "yes", "no", "yes"]


def test_nested_member_checksum_names_the_path(nested_mirror, cache):
    wrong = "f" * 64
    with pytest.raises(DownloadError) as err:
        download("student", nested_spec(sha256=wrong), **outputs(cache, "student"))
    assert str(err.value) == (f"dataset student: sha256 mismatch for member student-mat.csv of member student.zip "
                              f"of {NESTED_URL}: expected {wrong}, found {hashlib.sha256(INNER).hexdigest()}")
    assert list(cache.iterdir()) == []


def test_nested_missing_inner_member_names_both(nested_mirror, cache):
    with pytest.raises(DownloadError) as err:
        download("student", nested_spec(member=["student.zip", "student-maths.csv"]), **outputs(cache, "student"))
    zip_path = nested_mirror / "static/public/320/student+performance.zip"
    assert str(err.value) == (f"dataset student: member student.zip of {zip_path} has no member student-maths.csv "
                              "(members: [student-mat.csv, student.txt])")
    assert list(cache.iterdir()) == []


def test_nested_missing_outer_member_names_both(nested_mirror, cache):
    with pytest.raises(DownloadError) as err:
        fetch_dataset("student", nested_spec(member=["students.zip", "student-mat.csv"]))
    zip_path = nested_mirror / "static/public/320/student+performance.zip"
    assert str(err.value) == (f"dataset student: {zip_path} has no member students.zip (which holds "
                              "student-mat.csv) (members: [student.zip, readme.txt])")


def test_nested_member_that_is_not_a_zip(nested_mirror):
    with pytest.raises(DownloadError) as err:
        fetch_dataset("student", nested_spec(member=["readme.txt", "student-mat.csv"]))
    zip_path = nested_mirror / "static/public/320/student+performance.zip"
    assert str(err.value) == (f"dataset student: member readme.txt of {zip_path} is not a readable zip archive "
                              "(File is not a zip file)")


def test_nested_member_over_the_network(site, cache):
    url = site.url("/static/public/320/student+performance.zip")
    site.pages["/static/public/320/student+performance.zip"] = NESTED
    record = download("student", nested_spec(url=url), **outputs(cache, "student"))
    assert site.requests == ["/static/public/320/student+performance.zip"] and record.read_from == "network"
    assert record.sha256 == hashlib.sha256(INNER).hexdigest()
    assert record.archive_sha256 == hashlib.sha256(NESTED).hexdigest()
    assert sorted(p.name for p in cache.iterdir()) == ["student.csv", "student.json"]   # no scratch file left
    with pytest.raises(DownloadError, match=rf"^dataset student: member student\.zip of {re.escape(url)} "
                                            r"has no member nothing\.csv \(members: "):
        fetch_dataset("student", nested_spec(url=url, member=["student.zip", "nothing.csv"]))


@pytest.mark.parametrize("member", [[], "", ["student.zip", ""], 3])
def test_malformed_member_refused(nested_mirror, member):
    with pytest.raises(ConfigError) as err:
        fetch_dataset("student", nested_spec(member=member))
    assert str(err.value) == (f"dataset student: datasets.student.member = {member!r}: must be a member name or a "
                              "non-empty list of names (a member of a zip inside the zip)")


# --------------------------------------------------------------------------------------
# an unpinned member: recorded on first read, checked afterwards
# --------------------------------------------------------------------------------------

def unpinned_spec() -> dict:
    spec = nested_spec()
    del spec["sha256"]
    return spec


def test_unpinned_member_recorded_on_first_read(nested_mirror, cache, caplog):
    paths = outputs(cache, "student")
    caplog.set_level("INFO", logger="pufferfish")
    record = download("student", unpinned_spec(), **paths)
    digest = hashlib.sha256(INNER).hexdigest()
    record_file = cache / "student.sha256.json"
    # the provenance says the hash was recorded, not verified
    assert record.sha256 == digest and record.sha256_expected is None and not record.sha256_verified
    assert record.sha256_source is None and record.sha256_record == str(record_file)
    assert json.loads((cache / "student.json").read_text()) == record.to_dict()
    recorded = json.loads(record_file.read_text())
    assert (recorded["url"], recorded["member"], recorded["sha256"]) == (
        NESTED_URL, ["student.zip", "student-mat.csv"], digest)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == [f"dataset student: member student-mat.csv of member student.zip of {NESTED_URL} is not "
                        f"pinned (no datasets.student.sha256): recorded its sha256 {digest} in {record_file}; "
                        "a later download with other bytes is refused"]

    # Snakemake removes a rule's outputs before re-running it: the record is not one of them
    for path in paths.values():
        path.unlink()
    caplog.clear()
    again = download("student", unpinned_spec(), **paths)
    assert again.sha256_verified and again.sha256_expected == digest and again.sha256_source == "recorded"
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
    assert json.loads(record_file.read_text()) == recorded


def test_unpinned_member_that_changes_is_refused(nested_mirror, cache):
    paths = outputs(cache, "student")
    download("student", unpinned_spec(), **paths)
    before = {p: p.read_bytes() for p in cache.iterdir()}
    changed = INNER + b"GP;no;11\n"
    zip_path = nested_mirror / "static/public/320/student+performance.zip"
    zip_path.write_bytes(_zip({"student.zip": _zip({"student-mat.csv": changed})}))
    with pytest.raises(DownloadError) as err:
        download("student", {**unpinned_spec(), "rows": 5}, **paths)
    record_file = cache / "student.sha256.json"
    assert str(err.value) == (
        f"dataset student: sha256 mismatch for member student-mat.csv of member student.zip of {NESTED_URL}: "
        f"expected {hashlib.sha256(INNER).hexdigest()}, found {hashlib.sha256(changed).hexdigest()} (recorded "
        f"at its first download in {record_file}; pin datasets.student.sha256 or delete that file to accept "
        "the new bytes)")
    assert {p: p.read_bytes() for p in cache.iterdir()} == before  # nothing replaced
    # a pin in the config wins over the record
    record = download("student", {**nested_spec(sha256=hashlib.sha256(changed).hexdigest()), "rows": 5}, **paths)
    assert record.sha256_source == "config" and record.sha256_verified and record.sha256_record is None


def test_record_of_another_member_is_replaced(nested_mirror, cache, caplog):
    paths = outputs(cache, "student")
    download("student", unpinned_spec(), **paths)
    spec = {**unpinned_spec(), "member": ["student.zip", "student.txt"], "read_csv": {"names": ["note"]},
            "rows": 1, "columns": ["note"]}
    record = download("student", spec, **paths)
    assert record.sha256_source is None and record.sha256 == hashlib.sha256(b"notes\n").hexdigest()
    assert json.loads((cache / "student.sha256.json").read_text())["member"] == ["student.zip", "student.txt"]
    assert any("student.sha256.json records member student-mat.csv of member student.zip" in r.getMessage()
               for r in caplog.records)


def test_corrupt_record_refused(nested_mirror, cache):
    (cache / "student.sha256.json").write_text("{not json")
    with pytest.raises(DownloadError, match=r"^dataset student: cannot read the recorded sha256 in .*student\.sha256"
                                            r"\.json \(.*\); delete it to record the member anew$"):
        download("student", unpinned_spec(), **outputs(cache, "student"))


def test_unpinned_member_without_a_record_file_is_read_unverified(nested_mirror, caplog):
    frame, record = fetch_dataset("student", unpinned_spec())
    assert len(frame) == 4 and not record.sha256_verified and record.sha256_record is None
    assert any("is not pinned (no datasets.student.sha256) and no record is kept" in r.getMessage()
               for r in caplog.records)


def test_schema_accepts_nested_and_unpinned_members():
    from pufferfish.pipeline.config import validate_config

    config = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    assert config["datasets"]["student_mat"]["member"] == ["student.zip", "student-mat.csv"]
    del config["datasets"]["student_mat"]["sha256"]
    validate_config(config)
    config["datasets"]["student_mat"]["member"] = []
    with pytest.raises(ConfigError, match=r"^config: datasets\.student_mat\.member = \[\]: must have at least 1 item\(s\)$"):
        validate_config(config)


# --------------------------------------------------------------------------------------
# network (a local HTTP site standing for UCI)
# --------------------------------------------------------------------------------------

def test_no_mirror_no_network_one_line_error(cache, monkeypatch):
    """As .ci/run checks it: an unroutable proxy stands for no network."""
    monkeypatch.delenv("UCI_MIRROR", raising=False)
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")
    monkeypatch.delenv("no_proxy", raising=False)
    for name, spec, url in [("adult", ucimlrepo_spec(uci_id=2), f"{SITE}/api/dataset?id=2"),
                            ("heart", archive_spec(), ARCHIVE_URL)]:
        with pytest.raises(DownloadError) as err:
            download(name, spec, **outputs(cache, name))
        message = str(err.value)
        assert "\n" not in message
        assert message == (f"dataset {name}: cannot reach {url} ([Errno 111] Connection refused); "
                           "set UCI_MIRROR to a local mirror of archive.ics.uci.edu (see README)")
    assert list(cache.iterdir()) == []


def test_network_ucimlrepo(site, cache):
    data_url = site.url("/static/public/7/data.csv")
    site.pages["/api/dataset?id=7"] = json.dumps({"status": 200, "data": {"uci_id": 7, "name": "Tiny",
                                                                          "data_url": data_url}}).encode()
    site.pages["/static/public/7/data.csv"] = UCI_CSV
    record = download("tiny", ucimlrepo_spec(), **outputs(cache, "tiny"), timeouts=Timeouts(5, 5, 30))
    assert site.requests == ["/api/dataset?id=7", "/static/public/7/data.csv"]
    assert record.read_from == "network" and record.url == data_url and record.uci_id == 7
    assert record.sha256 == hashlib.sha256(UCI_CSV).hexdigest() and not record.sha256_verified
    pd.testing.assert_frame_equal(pd.read_csv(cache / "tiny.csv"), pd.read_csv(io.BytesIO(UCI_CSV)))
    assert sorted(p.name for p in cache.iterdir()) == ["tiny.csv", "tiny.json"]


def test_network_archive(site, cache):
    site.pages["/tiny+archive.zip"] = ARCHIVE
    record = download("heart", archive_spec(url=site.url("/tiny+archive.zip")), **outputs(cache, "heart"))
    assert site.requests == ["/tiny+archive.zip"]
    assert record.read_from == "network" and record.sha256_verified
    assert record.sha256 == hashlib.sha256(MEMBER).hexdigest()
    assert record.archive_sha256 == hashlib.sha256(ARCHIVE).hexdigest()
    assert pd.read_csv(cache / "heart.csv")["age"].tolist() == [63, 67, 41]


def test_network_and_mirror_write_the_same_files(site, tmp_path):
    """The streamed network path and the mirror write byte-identical tables; the provenance
    differs only where the bytes were read from."""
    site.pages["/static/public/320/student+performance.zip"] = NESTED
    mirror = tmp_path / "mirror" / "static/public/320"
    mirror.mkdir(parents=True)
    (mirror / "student+performance.zip").write_bytes(NESTED)
    spec = nested_spec(url=site.url("/static/public/320/student+performance.zip"))
    (tmp_path / "net").mkdir()
    (tmp_path / "off").mkdir()
    download("student", spec, **outputs(tmp_path / "net", "student"))
    mirrored = {**spec, "url": NESTED_URL}
    download("student", mirrored, **outputs(tmp_path / "off", "student"), mirror=tmp_path / "mirror")
    assert (tmp_path / "net/student.csv").read_bytes() == (tmp_path / "off/student.csv").read_bytes()
    net, off = (json.loads((tmp_path / where / "student.json").read_text()) for where in ("net", "off"))
    assert net.pop("read_from") == "network" and off.pop("read_from") == str(mirror / "student+performance.zip")
    assert net.pop("url") == spec["url"] and off.pop("url") == NESTED_URL
    assert net == off


def test_network_follows_a_redirect(site, cache):
    def moved(handler, stop):
        handler.send_response(301)
        handler.send_header("Location", "/new/tiny+archive.zip")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    site.pages["/tiny+archive.zip"], site.pages["/new/tiny+archive.zip"] = moved, ARCHIVE
    record = download("heart", archive_spec(url=site.url("/tiny+archive.zip")), **outputs(cache, "heart"))
    assert site.requests == ["/tiny+archive.zip", "/new/tiny+archive.zip"] and record.sha256_verified


def test_network_http_error(site, cache):
    url = site.url("/tiny+archive.zip")
    expected = rf"^dataset heart: cannot download {re.escape(url)} \(HTTP 404 Not Found\); set UCI_MIRROR"
    with pytest.raises(DownloadError, match=expected):
        download("heart", archive_spec(url=url), **outputs(cache, "heart"))
    assert list(cache.iterdir()) == []


def test_network_unknown_uci_id(site, cache):
    site.pages["/api/dataset?id=7"] = json.dumps({"status": 404, "message": "Dataset not found"}).encode()
    with pytest.raises(DownloadError, match=r"^dataset tiny: UCI has no dataset with id 7 \(Dataset not found; "):
        fetch_dataset("tiny", ucimlrepo_spec())


def test_network_checksum_mismatch(site, cache):
    site.pages["/tiny+archive.zip"] = _zip({MEMBER_NAME: MEMBER + b"1,1,1\n"})
    with pytest.raises(DownloadError, match="sha256 mismatch"):
        download("heart", archive_spec(url=site.url("/tiny+archive.zip")), **outputs(cache, "heart"))
    assert list(cache.iterdir()) == []


def test_network_not_a_zip(site, cache):
    site.pages["/tiny+archive.zip"] = b"<html>maintenance</html>"
    url = site.url("/tiny+archive.zip")
    expected = rf"^dataset heart: {re.escape(url)} is not a readable zip archive \(File is not a zip file\)$"
    with pytest.raises(DownloadError, match=expected):
        download("heart", archive_spec(url=url), **outputs(cache, "heart"))
    assert list(cache.iterdir()) == []


# --------------------------------------------------------------------------------------
# atomic writes
# --------------------------------------------------------------------------------------

def test_interrupted_csv_write_leaves_nothing(mirror, cache, monkeypatch):
    def half_then_fail(self, path, *args, **kwargs):
        Path(path).write_text("age,colour\n39,")  # half a file
        raise RuntimeError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_fail)
    with pytest.raises(RuntimeError, match="disk full"):
        download("tiny", ucimlrepo_spec(), **outputs(cache, "tiny"))
    assert list(cache.iterdir()) == []


def test_interrupted_json_write_leaves_nothing(mirror, cache, monkeypatch):
    def fail(obj, path):
        raise RuntimeError("disk full")

    monkeypatch.setattr(fetch.dataset, "write_json", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        download("tiny", ucimlrepo_spec(), **outputs(cache, "tiny"))
    assert list(cache.iterdir()) == []


def test_failed_fetch_keeps_existing_files(mirror, cache):
    paths = outputs(cache, "tiny")
    download("tiny", ucimlrepo_spec(), **paths)
    before = {p: p.read_bytes() for p in cache.iterdir()}
    with pytest.raises(DataError):
        download("tiny", ucimlrepo_spec(rows=99), **paths)
    assert {p: p.read_bytes() for p in cache.iterdir()} == before


def test_csv_that_does_not_read_back_is_refused(mirror, cache):
    # "NaN" kept as text by keep_default_na=False would read back as a missing value
    spec = ucimlrepo_spec(read_csv={"keep_default_na": False})
    with pytest.raises(DataError, match="^dataset tiny: the CSV written would not read back as the table parsed"):
        download("tiny", spec, **outputs(cache, "tiny"))
    assert list(cache.iterdir()) == []


# --------------------------------------------------------------------------------------
# the real mirror (CI sets UCI_MIRROR)
# --------------------------------------------------------------------------------------

@pytest.mark.skipif(not os.environ.get("UCI_MIRROR"), reason="UCI_MIRROR is not set")
def test_real_mirror(tmp_path, monkeypatch):
    no_network(monkeypatch)
    config = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    expected_rows = {"adult": 48842, "bank_marketing": 45211, "student_performance": 649, "hungarian_heart": 294,
                     "student_mat": 395, "heart_cleveland": 303, "adult_train": 32561}
    # the mirror's own checksums of the original files (its SHA256SUMS), against the config's pins
    sums = dict(reversed(line.split(None, 1)) for line in
                (Path(os.environ["UCI_MIRROR"]) / "SHA256SUMS").read_text().splitlines() if line.strip())
    originals = {"student_mat": "student-performance/student-mat.csv",
                 "heart_cleveland": "heart-disease/processed.cleveland.data", "adult_train": "adult/adult.data",
                 "hungarian_heart": "heart-disease/processed.hungarian.data"}
    for name, rows in expected_rows.items():
        record = download(name, config["datasets"][name], csv_path=tmp_path / f"{name}.csv",
                          json_path=tmp_path / f"{name}.json")
        assert record.rows == rows
        assert len(pd.read_csv(tmp_path / f"{name}.csv")) == rows
        assert record.read_from.startswith(str(Path(os.environ["UCI_MIRROR"]).resolve()))
        assert record.sha256 == json.loads((tmp_path / f"{name}.json").read_text())["sha256"]
        if name in originals:
            assert record.sha256_verified and record.sha256 == config["datasets"][name]["sha256"] == sums[originals[name]]
    heart = json.loads((tmp_path / "hungarian_heart.json").read_text())
    assert heart["sha256_verified"] is True
    assert heart["sha256"] == config["datasets"]["hungarian_heart"]["sha256"]
