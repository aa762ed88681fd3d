"""The blackjax adapter (skipped unless blackjax is installed: pip install blackjax)."""

from __future__ import annotations

import pytest


@pytest.mark.peers
def test_blackjax_sgld_against_the_reference():
    pytest.importorskip("blackjax")
    from sgmcmc_verify.validation import validate
    from sgmcmc_verify.validation.blackjax_adapter import sample_function

    rep = validate(sample_function("sgld"), "sgld", hs=(0.2,), profile="quick")
    assert rep.verdict in ("pass", "fail"), rep.summary()  # an error would be an adapter bug


def test_adapter_reports_absence():
    from sgmcmc_verify.validation import blackjax_adapter

    if blackjax_adapter.AVAILABLE:
        pytest.skip("blackjax installed")
    with pytest.raises(ImportError, match="pip install blackjax"):
        blackjax_adapter.sample_function("sgld")
