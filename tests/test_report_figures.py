"""The report's figure kinds render to valid, deterministic PNGs from hand-made data."""

from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.report.figures import KINDS, _draw

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

_edges = np.linspace(-1.0, 5.0, 13)
_grid = np.linspace(-1.0, 5.0, 25)

DATA = {
    "xi_law": {
        "kind": "xi_law",
        "setting": "1-D Gaussian, A = 1, B = 1",
        "D": 2.0,
        "mu": 1.0,
        "h_hist": 0.05,
        "bin_edges": _edges.tolist(),
        "counts": [0, 1, 3, 8, 15, 20, 22, 16, 9, 4, 1, 1],
        "chains": 100,
        "h": [0.05, 0.1, 0.2],
        "mean_minus_D": [0.04, 0.09, 0.2],
        "se": [0.01, 0.01, 0.02],
        "b_star": 1.5,
    },
    "dw_densities": {
        "kind": "dw_densities",
        "bin_edges": _edges.tolist(),
        "grid": _grid.tolist(),
        "density": np.exp(-0.5 * (_grid - 2.0) ** 2).tolist(),
        "kinetic_energy_target": 0.5,
        "regimes": [
            {"regime": "ξ = 1", "counts": [0, 1, 3, 8, 15, 20, 22, 16, 9, 4, 1, 1],
             "total_draws": 100, "kinetic_energy": 0.5, "kinetic_energy_se": 0.01},
            {"regime": "ξ = 0.1", "counts": [5, 6, 8, 9, 10, 10, 10, 9, 8, 7, 6, 5],
             "total_draws": 100, "kinetic_energy": 4.8, "kinetic_energy_se": 0.1},
        ],
    },
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(DATA))
def test_figure_renders_deterministically(kind):
    assert kind in KINDS
    a = _draw(kind, DATA[kind])
    b = _draw(kind, DATA[kind])
    assert a.startswith(PNG_MAGIC)
    assert len(a) > 1000
    assert a == b
