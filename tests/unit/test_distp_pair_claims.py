"""DistP of a finite channel for a pair (pufferfish.distp.pair), the claims of paper 003's
introduction (pufferfish.distp.claims) and the service loss (pufferfish.distp.utility).

Oracles: POT (the transport plan of two laws on the line, W_1 and the largest move of the
monotone plan), output laws as explicit sums over inputs, the hockey stick and log ratios
written out in the test, and cases worked by hand (point masses, where each claim is an
equality).
"""
import math

import numpy as np
import ot
import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.distp import (F_DIVERGENCES, divergence_claim, dp_claim, make_claim, pair_privacy, service_loss,
                              transport_distances, xdp_claim)
from pufferfish.errors import InvalidArgumentError
from pufferfish.mechanisms import ClampedGeometric, RandomizedResponse


def domains(max_size=7):
    """Strictly increasing integer domains of 2..max_size values."""
    return st.lists(st.integers(-20, 40), min_size=2, max_size=max_size, unique=True).map(sorted)


def pmfs(size, data):
    """A pmf with masses 0 or >= 1e-3 (so that POT's plan, read above 1e-12, shows every move)."""
    values = np.array(data.draw(st.lists(st.floats(0.0, 1.0), min_size=size, max_size=size)
                                .filter(lambda v: sum(v) > 0.05)))
    values = np.where(values < 1e-3, 0.0, values)
    return values / values.sum()


@settings(deadline=None)
@given(domains(), st.data())
def test_transport_distances_against_pot(domain, data):
    lam0, lam1 = pmfs(len(domain), data), pmfs(len(domain), data)
    x = np.array(domain, dtype=float)
    w_inf, w_1 = transport_distances(domain, lam0, lam1)
    assert w_1 == pytest.approx(ot.emd2(lam0, lam1, np.abs(x[:, None] - x[None, :])), rel=1e-9, abs=1e-12)
    plan = ot.emd_1d(x, x, lam0, lam1, metric="cityblock", dense=True)      # the monotone coupling
    moves = np.abs(x[:, None] - x[None, :])[plan > 1e-12]
    assert w_inf == (moves.max() if moves.size else 0.0)


def test_pair_privacy_by_hand():
    # RR(log 3) on 3 values: keep 3/5, other 1/5; lambda0 = (1, 0, 0), lambda1 = (0, 0, 1)
    rr = RandomizedResponse(3, math.log(3))
    pair = pair_privacy(rr.matrix(), [1, 0, 0], [0, 0, 1], domain=(0, 1, 5))
    assert np.allclose(pair.output0, [0.6, 0.2, 0.2], rtol=1e-15) and np.allclose(pair.output1, [0.2, 0.2, 0.6])
    assert pair.pure_epsilon == pytest.approx(math.log(3), rel=1e-15)
    assert (pair.w_inf, pair.w_1) == (5.0, 5.0)
    assert pair.xdistp_epsilon == pytest.approx(math.log(3) / 5, rel=1e-15)
    # delta(0) = total variation 0.4; delta(log 2) = (0.6 - 0.4)^+ = 0.2
    assert pair.delta(epsilon=0) == pytest.approx(0.4, rel=1e-15)
    assert pair.delta(epsilon=math.log(2)) == pytest.approx(0.2, rel=1e-14)
    assert pair.divergence("total_variation") == pytest.approx(0.4, rel=1e-15)
    categorical = pair_privacy(rr.matrix(), [1, 0, 0], [0, 0, 1])
    assert math.isnan(categorical.w_inf) and math.isnan(categorical.xdistp_epsilon)


@settings(deadline=None)
@given(domains(), st.floats(0.01, 5.0), st.data())
def test_claims_hold_for_the_geometric_mechanism(domain, eps_a, data):
    lam0, lam1 = pmfs(len(domain), data), pmfs(len(domain), data)
    mechanism = ClampedGeometric(tuple(domain), eps_a)
    channel = mechanism.matrix()
    xdp = xdp_claim(channel, domain, lam0, lam1)
    assert xdp.holds and xdp.constant == pytest.approx(eps_a, rel=1e-12)
    # the exact pure eps, written out: max over outputs of |log sum_x lambda0(x) C[x, y] - log ...|
    out0, out1 = lam0 @ channel, lam1 @ channel
    assert xdp.exact == pytest.approx(float(np.max(np.abs(np.log(out0) - np.log(out1)))), rel=1e-12, abs=1e-15)
    assert dp_claim(channel, lam0, lam1).holds
    for name in F_DIVERGENCES:
        claim = divergence_claim(channel, domain, lam0, lam1, name)
        assert claim.holds, claim


@settings(deadline=None)
@given(st.integers(2, 6), st.floats(0.01, 8.0), st.data())
def test_claims_hold_for_randomized_response(m, eps_a, data):
    lam0, lam1 = pmfs(m, data), pmfs(m, data)
    channel = RandomizedResponse(m, eps_a).matrix()
    claim = dp_claim(channel, lam0, lam1)
    assert claim.holds and claim.constant == pytest.approx(eps_a, rel=1e-12)
    assert divergence_claim(channel, tuple(range(m)), lam0, lam1, "kl").holds


def test_point_masses_make_each_claim_an_equality():
    # geometric, lambda0 = delta_2, lambda1 = delta_6: the outputs are two rows, pure eps = eps_A |2 - 6| = bound
    mechanism = ClampedGeometric((0, 2, 6, 9), 0.4)
    xdp = xdp_claim(mechanism.matrix(), mechanism.domain, [0, 1, 0, 0], [0, 0, 1, 0])
    assert xdp.exact == pytest.approx(1.6, rel=1e-13) and xdp.bound == pytest.approx(1.6, rel=1e-13)
    assert xdp.holds and xdp.note == "holds with equality"
    rr = RandomizedResponse(4, 1.5)
    assert dp_claim(rr.matrix(), [1, 0, 0, 0], [0, 0, 0, 1]).note == "holds with equality"
    # KL between two rows at distance 1 is eps_KL itself when the pair are adjacent point masses
    kl = divergence_claim(rr.matrix(), (0, 1, 2, 3), [1, 0, 0, 0], [0, 1, 0, 0], "kl")
    keep, other = rr.keep, rr.other
    by_hand = keep * math.log(keep / other) + other * math.log(other / keep)
    assert kl.exact == pytest.approx(by_hand, rel=1e-13) and kl.coupling == pytest.approx(by_hand, rel=1e-13)
    assert kl.note == "holds with equality"


def test_a_bound_below_the_exact_value_is_flagged():
    claim = make_claim("example", 2.0, 0.5, 3.0)
    assert not claim.holds and claim.note.startswith("DEFECT")
    assert not make_claim("example", 1.0, 1.0, 2.0, coupling=0.5).holds          # exact above the coupling term
    assert make_claim("example", 1.0, 1.0, 1.0 - 1e-12).holds                    # within rounding


def test_service_loss_by_hand():
    rr = RandomizedResponse(3, math.log(2))                 # keep 1/2, other 1/4
    assert service_loss(rr.matrix(), [0.2, 0.3, 0.5], inputs=list("abc"), outputs=list("abc"),
                        kind="categorical") == pytest.approx(0.5, rel=1e-15)
    # E|x - y| on (0, 1, 2) from x = 0: 1/4 (1 + 2) = 0.75
    assert service_loss(rr.matrix(), [1, 0, 0], inputs=(0, 1, 2), outputs=(0, 1, 2)) == pytest.approx(0.75, rel=1e-15)
    geometric = ClampedGeometric((0, 1), math.log(3))       # r = 1/3: P(stay) = 3/4 at both ends
    assert service_loss(geometric.matrix(), [0.5, 0.5], inputs=(0, 1), outputs=(0, 1)) == pytest.approx(0.25)


@pytest.mark.parametrize("call, text", [
    (lambda: transport_distances((0, 0, 1), [0.5, 0.25, 0.25], [0.5, 0.25, 0.25]), "domain = (0, 0, 1)"),
    (lambda: transport_distances((0, 1.5), [0.5, 0.5], [0.5, 0.5]), "domain[1] = 1.5"),
    (lambda: pair_privacy(np.eye(3), [1, 0, 0], [0, 1, 0], domain=(0, 1)), "domain: 2 values for 3 inputs"),
    (lambda: service_loss(np.eye(2), [0.5, 0.5], inputs=(0,), outputs=(0, 1)), "inputs, outputs"),
    (lambda: service_loss(np.eye(2), [0.5, 0.5], inputs=(0, 1), outputs=(0, 1), kind="l2"), "kind = 'l2'"),
    (lambda: divergence_claim(np.eye(2), (0, 1), [1, 0], [0, 1], "js"), "name = 'js'"),
])
def test_bad_input_is_one_line(call, text):
    with pytest.raises(InvalidArgumentError) as caught:
        call()
    assert text in str(caught.value) and "\n" not in str(caught.value)
