"""The fault catalog (tests/faults) names every public function of the package that returns a privacy value.

The rule that selects them and the tables of routes and exclusions: :mod:`tests.faults.coverage`.
"""
from __future__ import annotations

import pytest

from tests.faults import catalog, coverage, inject


def test_every_privacy_function_is_in_the_fault_list():
    targets = {c.target for c in catalog.CATALOG}
    missing = [f for f in coverage.privacy_functions()
               if f not in targets and f not in coverage.ROUTES and f not in coverage.EXCLUDED]
    assert missing == [], f"add to tests/faults/catalog*.py, or to ROUTES / EXCLUDED of tests/faults/coverage.py: " \
                          f"{missing}"


def test_the_tables_name_public_privacy_functions_only():
    selected = set(coverage.privacy_functions())
    stale = sorted((set(coverage.ROUTES) | set(coverage.EXCLUDED)) - selected)
    assert stale == [], f"not (or no longer) a public privacy function: {stale}"
    assert not set(coverage.ROUTES) & set(coverage.EXCLUDED)
    assert all(reason.strip() for reason in coverage.EXCLUDED.values())


def test_routes_lead_to_catalogued_computations():
    names = {c.name for c in catalog.CATALOG}
    assert sorted(set(coverage.ROUTES.values()) - names) == []


@pytest.mark.parametrize("computation", catalog.CATALOG, ids=lambda c: c.name)
def test_every_target_resolves(computation):
    owner, attribute, raw = inject.resolve(computation.target)
    assert callable(raw) or isinstance(raw, (staticmethod, classmethod))


def test_keys_are_unique_and_removed_regions_are_reasoned():
    keys = [catalog.key(c, r) for c, r in catalog.faults()]
    assert len(keys) == len(set(keys))
    assert len({c.name for c in catalog.CATALOG}) == len(catalog.CATALOG)
    for key, reason in catalog.REMOVED.items():
        assert key not in keys and reason.strip()
