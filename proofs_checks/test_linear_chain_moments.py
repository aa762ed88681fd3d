"""Sympy derivation of the stationary variance of Euler SGLD on a Gaussian (DESIGN.md anchor).

Chain: ``θ' = θ − h(a(θ − μ) + e) + √(2h) ξ`` with ``e`` independent, mean 0, variance
``s²`` (state-independent gradient noise) and ``ξ ~ N(0, 1)``.  Stationarity of the
second moment, ``V = (1 − ha)² V + h² s² + 2h``, gives ``a·V = (2 + h s²)/(2 − h a)``.
"""

import sympy as sp

a, h, s2, V = sp.symbols("a h s2 V", positive=True)


def stationary_variance():
    return sp.solve(sp.Eq(V, (1 - h * a) ** 2 * V + h**2 * s2 + 2 * h), V)[0]


def test_design_anchor():
    assert sp.simplify(a * stationary_variance() - (2 + h * s2) / (2 - h * a)) == 0


def test_bias_is_first_order_with_the_stated_coefficient():
    series = sp.series(a * stationary_variance(), h, 0, 2).removeO()
    assert sp.simplify(series - (1 + h * (a + s2) / 2)) == 0


def test_lmc_is_the_noise_free_case():
    assert sp.simplify(stationary_variance().subs(s2, 0) - 2 / (a * (2 - h * a))) == 0
