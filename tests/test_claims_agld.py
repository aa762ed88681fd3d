"""AGLD-R1, R2, UNB, MEM: the verdicts of the real implementation, and power: each check
turns negative on a deliberately broken strategy."""

import itertools
from dataclasses import dataclass

import numpy as np
import pytest

from sgmcmc_verify.access import CA, RA, RR, WOR
from sgmcmc_verify.claims import agld, check, decide
from sgmcmc_verify.estimators import AGLD
from sgmcmc_verify.snapshots import PPU, PTU, TMU, SnapshotStrategy


@pytest.fixture(scope="session")
def r1(once):
    return once("claims_agld-r1", lambda: check("AGLD-R1", seed=0))


def test_r1_verdicts(r1):
    # one reading for both (issue 12): x iterations = ⌈x⌉ whole iterations, so CA's N/n and
    # RR's 2N/n are read alike and both hold, exactly, on the whole grid
    for name in ("CA", "RR"):
        part = r1.part(name)
        assert (part.verdict, part.rule) == ("confirmed", "exact"), name
        assert agld.ITERATIONS_READING in part.reading
        # the real-valued x is exceeded when n ∤ N, for both alike (e.g. N = 4, n = 3)
        lit = part.measured[
            f"first (N, n) above the real-valued {'N/n' if name == 'CA' else '2N/n'}"
        ]
        assert lit.value is not None and lit.value["N"] % lit.value["n"] != 0
    ca = r1.part("CA").measured["first (N, n) above the real-valued N/n"].value
    assert ca["max_staleness"] > ca["N/n"]
    rr = r1.part("RR").measured["first (N, n) above the real-valued 2N/n"].value
    assert rr["worst_staleness"] > rr["2N/n"]
    # RA: the coupon-collector law holds (χ² and the tail mass at the 0.95 quantile, each at
    # α = 1e-3/2: the χ² detects TV ≥ 0.05 on its pooled bins with power 0.9, the binomial
    # test a doubled tail), but a fixed C holds only w.h.p. (the paper's own w.h.p.)
    ra = r1.part("RA")
    assert ra.verdict == "qualified" and ra.erratum is not None
    assert ra.measured["coupon-collector law: verdict"].value == "confirmed"
    assert ra.measured["coupon-collector law: MDE (power 0.9)"].value <= agld.MEANINGFUL_TV
    assert ra.measured["coupon-collector law: MDE scope"].value == "on the pooled bins"
    assert ra.measured["tail mass: verdict"].value == "confirmed"
    p_tail = ra.measured["tail mass: P(M_k > C), exact"].value
    assert 0 < p_tail <= agld.TAIL_DELTA
    assert ra.measured["tail mass: MDE (power 0.9)"].value <= 2 * p_tail
    assert ra.measured["a fixed C surely: verdict"].value == "qualified"
    assert "w.h.p." in ra.measured["a fixed C surely: why not refuted"].value
    assert r1.verdict == "qualified"


def test_r1_reading_decides_both_alike(monkeypatch):
    # read x iterations as ⌊x⌋ instead: then CA and RR both fail, the same way
    monkeypatch.setattr(agld, "iterations", lambda x: int(x))
    parts, _ = agld.check_r1(seed=0)
    verdicts = {p.name: p.verdict for p in parts}
    assert verdicts["CA"] == "refuted" and verdicts["RR"] == "refuted"


@dataclass(frozen=True)
class SkippingCA(CA):
    """Planted bug: cycles over N − 1 indices, so the last one is never read."""

    def draw(self, state, chains, N, rng):
        return super().draw(state, chains, max(N - 1, 1), rng)


@dataclass(frozen=True)
class NoReshuffleRR(WOR):
    """Planted bug: a fresh random batch every iteration instead of reading a permutation."""


@dataclass(frozen=True)
class BiasedRA(RA):
    """Planted bug: RA that never draws index N − 1."""

    def draw(self, state, chains, N, rng):
        return super().draw(state, chains, max(N - 1, 1), rng)


def test_r1_refutes_broken_strategies():
    parts, _ = agld.check_r1(seed=0, access={"CA": SkippingCA, "RR": NoReshuffleRR, "RA": BiasedRA})
    verdicts = {p.name: p.verdict for p in parts}
    assert verdicts == {"CA": "refuted", "RR": "refuted", "RA": "refuted"}
    # the tail test sees it on its own: index N − 1 is never visited, so M_k > C always
    assert parts[2].measured["tail mass: verdict"].value == "refuted"


@pytest.fixture(scope="session")
def r2(once):
    return once("claims_agld-r2", lambda: check("AGLD-R2", seed=0))


def test_r2_verdicts(r2):
    for name in ("PTU", "TMU"):
        for acc in ("RA", "RR", "CA"):
            assert r2.part(f"{name}-{acc}").verdict == "confirmed"
    for acc in ("RR", "CA"):
        assert r2.part(f"PPU-{acc}").verdict == "confirmed"
        assert r2.part(f"HSAG-{acc}").verdict == "confirmed"
    for name in ("PPU-RA", "HSAG-RA"):  # the age law holds, with power; D exists only w.h.p.
        part = r2.part(name)
        assert part.verdict == "qualified" and part.erratum is not None
        assert part.measured["geometric age law: verdict"].value == "confirmed"
        assert part.measured["a fixed D surely: verdict"].value == "qualified"
    assert r2.verdict == "qualified"


@dataclass(frozen=True)
class Frozen(SnapshotStrategy):
    """Planted bug: a snapshot that is never refreshed."""

    name = "frozen"


@dataclass(frozen=True)
class LatePTU(PTU):
    """Planted bug: an epoch counter that refreshes every D + 2 iterations.

    (A refresh one iteration late, every D + 1, leaves ages ≤ D: it satisfies the
    claim's D as written, and the check rightly accepts it.)
    """

    def total(self, k, N):
        return np.ones(N, bool) if (k + 1) % (self.D + 2) == 0 else None


def test_r2_refutes_a_snapshot_that_is_never_refreshed():
    parts, _ = agld.check_r2(seed=0, snapshots={"PPU": lambda N, D: Frozen()})
    assert {p.verdict for p in parts} == {"refuted"}


def test_r2_refutes_an_off_by_one_epoch():
    parts, _ = agld.check_r2(seed=0, snapshots={"PTU": lambda N, D: LatePTU(D)})
    assert {p.verdict for p in parts} == {"refuted"}


def test_unb_verdicts():
    r = check("AGLD-UNB", seed=0)
    assert r.verdict == "confirmed"
    assert r.part("RA").measured["max ‖E[g|past] − ∇U‖ / sd(g)"].value == 0.0
    assert r.part("CA").measured["median bias / sd(g_RA)"].value > 0.05
    assert r.part("RR").measured["max bias / sd(g_RA) at a pass start"].value == 0.0


def test_unb_refutes_a_biased_random_access():
    def biased_law(access, N, n, pos, perm):
        if access == "RA":  # never draws the last index
            tuples = np.array(list(itertools.product(range(N - 1), repeat=n)))
            return tuples, np.full(len(tuples), 1.0 / len(tuples))
        return agld._batches(access, N, n, pos, perm)

    parts, _ = agld.check_unb(seed=0, batch_law=biased_law)
    assert parts[0].name == "RA" and parts[0].verdict == "refuted"


def test_mem_verdicts():
    r = check("AGLD-MEM", seed=0)
    assert r.verdict == "confirmed"
    assert r.part("PTU").measured["exponent of N"].value == 0.0
    assert r.part("PPU-GLM").measured["exponent of d"].value == 0.0


def test_mem_refutes_a_ptu_that_stores_the_table():
    parts, _ = agld.check_mem(
        seed=0, estimators={"PTU": lambda n: AGLD(RA(n), PTU(10), storage="table")}
    )
    assert parts[0].verdict == "refuted" and parts[0].measured["exponent of N"].value == 1.0


def test_mem_equivalence_part_compares_real_trajectories():
    assert agld._storage_equivalence(agld.linear_regression_synthetic(30, 2, seed=1), 1) < 1e-9


def test_tmu_and_ppu_storages_are_interchangeable_in_r2():
    parts, _ = agld.check_r2(
        seed=1,
        snapshots={"TMU": lambda N, D: TMU(D), "PPU": lambda N, D: PPU()},
        access={"CA": CA, "RR": RR},
    )
    assert {p.verdict for p in parts} == {"confirmed"}


def test_every_part_goes_through_a_decision_builder(r1, r2):
    # issue 12: every part names its decision rule; the deterministic ones are exact, the law
    # tests are all_of(statistical χ², exact tail)
    for r in (r1, r2, check("AGLD-UNB", seed=0), check("AGLD-MEM", seed=0)):
        for p in r.parts:
            assert decide.is_decided(p.rule), (r.claim_id, p.name, p.rule)
            assert p.rule in (
                "exact",
                "all_of(statistical, exact)",
                "all_of(statistical, statistical, exact)",  # R1's RA: χ² law, tail mass, C surely
            ), (r.claim_id, p.name)
    assert r2.params["alpha"] == 1e-3  # split over the two law tests by multiplicity.bonferroni
