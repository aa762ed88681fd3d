"""The exact thermostat identities of sgmcmc_verify.exact.thermostat (SGNHT Alg. 1, §5.2, (11);
BADODAB, Leimkuhler & Shang 2016).

The pathwise form is deterministic: for the papers' updates the thermostat's increment over
a window equals ``h`` times the summed kinetic deviations to rounding, so these tests are
exact (no α); a planted bug in the update breaks it by O(h) per step.
"""

import dataclasses
import math

import numpy as np
import pytest

from sgmcmc_verify import bugs, integrators, registry
from sgmcmc_verify.driver import run_sampler
from sgmcmc_verify.exact import thermostat
from sgmcmc_verify.problems import GaussianQuadratic

P2 = GaussianQuadratic(np.zeros((1, 2)), np.array([[[1.0, 0.5], [0.5, 1.0]]]), name="corr-2d")
H = 0.1
XI0 = {"sgnht": "xi0", "sgnht-2": "xi0", "sgnht-mat": "Xi0", "badodab": "xi0"}


def _draws(sampler, steps=400, chains=20):
    with np.errstate(all="ignore"):
        res = run_sampler(sampler, n_steps=steps, chains=chains, seed=3, record=("p", "xi", "grad"))
    return res.draws["p"], res.draws["xi"], res.draws["grad"]


def _sampler(name, **kw):
    # SGNHT §3's injected gradient noise: the identity holds for any gradient noise
    return registry.make_sampler(
        name, P2, h=H, gradient="injected", B=1.0, **{XI0[name]: 2.0}, **kw
    )


def test_every_registry_thermostat_has_an_identity():
    assert set(registry.names("thermostat")) == set(thermostat.IDENTITIES)


@pytest.mark.parametrize("name", registry.names("thermostat"))
def test_pathwise_identity_holds_to_rounding(name):
    p, xi, g = _draws(_sampler(name))
    resid = thermostat.telescoping_residual(name, p, xi, H, grad=g)
    assert resid.shape == (20,)
    assert resid.max() < 1e-10


def test_matrix_thermostat_mass_enters_as_h_over_mu():
    p, xi, _ = _draws(_sampler("sgnht-mat", mu=2.0))
    assert thermostat.telescoping_residual("sgnht-mat", p, xi, H, mu=2.0).max() < 1e-10
    assert thermostat.telescoping_residual("sgnht-mat", p, xi, H, mu=1.0).max() > 1e-2


@pytest.mark.parametrize(
    ("bug", "name"),
    [
        (bugs.xi_old_p, "sgnht"),  # E|p|²/n = 1 still holds: only the pathwise form sees it
        (bugs.xi_sum_not_mean, "sgnht"),
        (bugs.sgnht2_eta_for_h, "sgnht-2"),
        (bugs.xi_matrix_ones, "sgnht-mat"),
    ],
)
def test_pathwise_identity_rejects_planted_bugs(bug, name):
    p, xi, _ = _draws(bug(_sampler(name)))
    with np.errstate(all="ignore"):  # the all-ones matrix makes the chain diverge
        resid = thermostat.telescoping_residual(name, p, xi, H)
    assert not np.all(resid < 1e-3)  # nan (a diverged chain) also fails the identity


def test_pinned_values_and_labels():
    p = np.array([[1.0, 2.0]])
    labels, dev = thermostat.pinned("sgnht", p)
    assert labels == ["E[pᵀp]/n − 1"]
    np.testing.assert_allclose(dev, [[1.5]])  # (1 + 4)/2 − 1
    assert thermostat.pinned("sgnht-2", p)[1] == pytest.approx(dev)
    labels, dev = thermostat.pinned("sgnht-mat", p)
    assert labels == ["E[p1p1] − 1", "E[p1p2] − 0", "E[p2p2] − 1"]
    np.testing.assert_allclose(dev, [[0.0, 2.0, 3.0]])


def test_matrix_thermostat_pins_every_entry():
    labels, dev = thermostat.pinned("sgnht-mat", np.ones((5, 7, 3)))
    assert len(labels) == 6 and dev.shape == (5, 7, 6)


def test_unknown_thermostat_is_refused():
    with pytest.raises(ValueError, match="thermostat"):
        thermostat.pinned("sghmc-chen", np.ones((1, 2)))


# -- BADODAB (Leimkuhler & Shang 2016): two D half-steps around the O step -------------------


def _badodab_by_hand(theta, p, xi, noise, h, A, mu, grad):
    """Two consecutive BADODAB steps transcribed from the paper's splitting, full kicks apart.

    B(h/2) A(h/2) D(h/2) O(h) D(h/2) A(h/2) B(h/2) with M = I, k_B T = 1, σ_A² = 2A, starting
    from the full-step momentum ``p``; returns the (θ, ξ) after each step and the momentum
    after each O.  Written independently of ``integrators.BADODAB`` (no merged kick).
    """
    d = theta.size
    out = []
    for r in noise:
        p = p - h / 2 * grad(theta)  # B
        theta = theta + h / 2 * p  # A
        xi = xi + h / (2 * mu) * (p @ p - d)  # D
        c = math.exp(-xi * h)
        p = c * p + math.sqrt(2 * A * (1 - c * c) / (2 * xi)) * r  # O: σ_A²(1 − e^{−2ξh})/(2ξ)
        xi = xi + h / (2 * mu) * (p @ p - d)  # D
        theta = theta + h / 2 * p  # A
        out.append((theta.copy(), xi, p.copy()))
        p = p - h / 2 * grad(theta)  # B
    return out


def test_badodab_step_is_the_papers_splitting_under_pinned_noise():
    # the merged B(h) kick reproduces BADODAB's θ- and ξ-chains exactly (same noise, full
    # gradient); the recorded p is the momentum leaving O
    h, A, mu = 0.3, 0.7, 2.0
    s = registry.make_sampler("badodab", P2, h=h, A=A, mu=mu, xi0=1.3, gradient="full")
    theta0, p0 = np.array([[0.4, -1.1]]), np.array([[0.9, 0.2]])
    noise = np.random.default_rng(5).standard_normal((3, 2))
    lam = P2.precision

    def g(th):
        return lam @ th  # U = θᵀΛθ/2 (centre 0), written out: not the problem's own gradient

    # the implementation's state before step 1 carries p0 + (h/2)∇U(θ0): the momentum
    # after the previous (virtual) O step, so that its B(h) is the paper's B(h/2) B(h/2)
    state = s.init(theta0, np.random.default_rng(0))._replace(
        p=p0 + h / 2 * g(theta0[0]), xi=np.array([1.3])
    )
    want = _badodab_by_hand(theta0[0], p0[0], 1.3, noise, h, A, mu, g)
    for r, (th, xi, p_o) in zip(noise, want, strict=True):
        state = s.integrator.advance(state, g(state.theta[0])[None, :], r[None, :])
        np.testing.assert_allclose(state.theta[0], th, rtol=0, atol=1e-14)
        np.testing.assert_allclose(state.p[0], p_o, rtol=0, atol=1e-14)
        assert state.xi[0] == pytest.approx(xi, abs=1e-14)


def test_badodab_increment_is_the_sum_of_the_two_half_steps():
    # one step with pinned noise: ξ' − ξ = (h/2μ)(|p_a|² + |p_b|² − 2d), p_a = p − h g
    integ = registry.make_sampler("badodab", P2, h=0.2, mu=0.5).integrator
    state = integ.init(np.array([[0.3, 0.1]]), np.random.default_rng(1), 2)
    g, r = np.array([[0.5, -2.0]]), np.array([[1.2, -0.4]])
    new = integ.advance(state, g, r)
    pa = state.p - 0.2 * g
    want = (0.2 / (2 * 0.5)) * (np.sum(pa**2) + np.sum(new.p**2) - 4)
    assert new.xi[0] - state.xi[0] == pytest.approx(want, rel=1e-13)
    # and pinned() pairs the same two momenta from the recorded (p, grad)
    p = np.concatenate([state.p, new.p])[None]
    gr = np.concatenate([np.zeros((1, 2)), g])[None]
    dev = thermostat.pinned("badodab", p, grad=gr, h=0.2)[1]
    assert dev.shape == (1, 1, 1)
    assert dev[0, 0, 0] == pytest.approx((np.sum(pa**2) + np.sum(new.p**2)) / 4 - 1, rel=1e-13)


def test_badodab_o_step_at_zero_and_negative_friction():
    # the O variance A(1 − e^{−2ξh})/ξ → 2Ah at ξ = 0 and stays positive for ξ < 0
    integ = registry.make_sampler("badodab", P2, h=0.1, A=1.5).integrator
    p, r = np.zeros((3, 2)), np.ones((3, 2))
    out = integ._o(p, np.array([0.0, 1e-12, -2.0]), r)
    assert out[0, 0] == pytest.approx(math.sqrt(2 * 1.5 * 0.1), rel=1e-15)
    assert out[1, 0] == pytest.approx(math.sqrt(2 * 1.5 * 0.1), rel=1e-9)
    assert out[2, 0] == pytest.approx(math.sqrt(1.5 * math.expm1(0.4) / 2.0), rel=1e-14)


def test_badodab_mass_enters_the_identity_as_h_over_2mu():
    p, xi, g = _draws(_sampler("badodab", mu=2.0))
    assert thermostat.telescoping_residual("badodab", p, xi, H, mu=2.0, grad=g).max() < 1e-10
    assert thermostat.telescoping_residual("badodab", p, xi, H, mu=1.0, grad=g).max() > 1e-2


class _SecondDSignFlipped(integrators.BADODAB):
    """Planted bug: the D half-step after O subtracts (h/2μ)(pᵀp − d) (wrong sign)."""

    def advance(self, state, grad, noise):
        h = self.h
        pa = state.p - h * grad
        theta1 = state.theta + 0.5 * h * pa
        xi1 = self._d(state.xi, pa)
        p = self._o(pa, xi1, noise)
        xi = 2 * xi1 - self._d(xi1, p)  # ξ₁ − (h/2μ)(pᵀp − d)
        return state._replace(theta=theta1 + 0.5 * h * p, p=p, xi=xi)


class _SecondDMissing(integrators.BADODAB):
    """Planted bug: the D half-step after O is left out."""

    def advance(self, state, grad, noise):
        h = self.h
        pa = state.p - h * grad
        xi1 = self._d(state.xi, pa)
        p = self._o(pa, xi1, noise)
        return state._replace(theta=state.theta + 0.5 * h * (pa + p), p=p, xi=xi1)


@pytest.mark.parametrize("bug", [_SecondDSignFlipped, _SecondDMissing])
def test_badodab_pathwise_identity_rejects_planted_d_bugs(bug):
    s = _sampler("badodab")
    s = dataclasses.replace(s, integrator=bug(H, A=1.0, mu=1.0, xi0=2.0))
    p, xi, g = _draws(s)
    with np.errstate(all="ignore"):
        resid = thermostat.telescoping_residual("badodab", p, xi, H, grad=g)
    assert not np.all(resid < 1e-3)


def test_badodab_identity_needs_the_gradient():
    with pytest.raises(ValueError, match="recorded gradient"):
        thermostat.pinned("badodab", np.ones((1, 5, 2)))
    with pytest.raises(ValueError, match="must match"):
        thermostat.pinned("badodab", np.ones((1, 5, 2)), grad=np.ones((1, 4, 2)), h=0.1)
    assert thermostat.labels("badodab", 2) == ["E[|p_a|² + |p_b|²]/(2d) − 1"]
