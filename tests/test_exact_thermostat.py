"""The exact thermostat identities of sgmcmc_verify.exact.thermostat (SGNHT Alg. 1, §5.2, (11)).

The pathwise form is deterministic: for the papers' updates the thermostat's increment over
a window equals ``h`` times the summed kinetic deviations to rounding, so these tests are
exact (no α); a planted bug in the update breaks it by O(h) per step.
"""

import numpy as np
import pytest

from sgmcmc_verify import bugs, registry
from sgmcmc_verify.driver import run_sampler
from sgmcmc_verify.exact import thermostat
from sgmcmc_verify.problems import GaussianQuadratic

P2 = GaussianQuadratic(np.zeros((1, 2)), np.array([[[1.0, 0.5], [0.5, 1.0]]]), name="corr-2d")
H = 0.1
XI0 = {"sgnht": "xi0", "sgnht-2": "xi0", "sgnht-mat": "Xi0"}


def _draws(sampler, steps=400, chains=20):
    with np.errstate(all="ignore"):
        res = run_sampler(sampler, n_steps=steps, chains=chains, seed=3, record=("p", "xi"))
    return res.draws["p"], res.draws["xi"]


def _sampler(name, **kw):
    # SGNHT §3's injected gradient noise: the identity holds for any gradient noise
    return registry.make_sampler(
        name, P2, h=H, gradient="injected", B=1.0, **{XI0[name]: 2.0}, **kw
    )


@pytest.mark.parametrize("name", ["sgnht", "sgnht-2", "sgnht-mat"])
def test_pathwise_identity_holds_to_rounding(name):
    p, xi = _draws(_sampler(name))
    resid = thermostat.telescoping_residual(name, p, xi, H)
    assert resid.shape == (20,)
    assert resid.max() < 1e-10


def test_matrix_thermostat_mass_enters_as_h_over_mu():
    p, xi = _draws(_sampler("sgnht-mat", mu=2.0))
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
    p, xi = _draws(bug(_sampler(name)))
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
