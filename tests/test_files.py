"""sgmcmc_verify.validation.files: the sample-file reader refuses every malformed input
with a one-line SampleFileError, before allocating anything large (issue 14)."""

from __future__ import annotations

import io
import re
import struct
import subprocess
import sys
import tempfile
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgmcmc_verify.validation import files
from sgmcmc_verify.validation.files import SampleFileError, display_name, load_samples


def _npy_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def _npy_header(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    buf = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buf, header)
    return buf.getvalue()


def _refused(path: Path, fragment: str) -> str:
    with pytest.raises(SampleFileError) as info:
        load_samples(path)
    msg = str(info.value)
    assert fragment in msg, msg
    assert "\n" not in msg
    return msg


def _peak_bytes(fn) -> int:
    """Peak traced allocation (numpy reports its buffers to tracemalloc) while ``fn`` runs."""
    tracemalloc.start()
    try:
        fn()
    except SampleFileError:
        pass
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


# -- the adversarial cases of issue 14, one test each ---------------------------------------


def test_corrupt_npz(tmp_path):
    path = tmp_path / "x.npz"
    path.write_bytes(b"PK\x03\x04garbage")  # printf 'PK\x03\x04garbage' > x.npz
    _refused(path, "x.npz: cannot read (BadZipFile")


def test_truncated_npz(tmp_path):
    good = tmp_path / "good.npz"
    np.savez(good, theta=np.zeros((2, 30, 1)))
    path = tmp_path / "cut.npz"
    path.write_bytes(good.read_bytes()[:150])
    _refused(path, "cut.npz: cannot read (BadZipFile")


def test_zip_member_that_is_not_npy(tmp_path):
    path = tmp_path / "m.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("theta.txt", "1 2 3")
    _refused(path, "member 'theta.txt' is not a .npy array")


def test_header_claiming_a_huge_shape_is_refused_before_allocation(tmp_path):
    path = tmp_path / "huge.npy"
    path.write_bytes(_npy_header((10**6, 10**6, 1)) + b"\0" * 64)  # 192 bytes
    assert path.stat().st_size == 192
    msg = _refused(path, "the cap is 2 GiB")
    assert "(1000000, 1000000, 1)" in msg and "7.28 TiB" in msg
    assert _peak_bytes(lambda: load_samples(path)) < 1 << 20  # nothing near 7 TiB tried


def test_header_larger_than_the_data_is_truncation(tmp_path):
    path = tmp_path / "t.npy"
    path.write_bytes(_npy_bytes(np.zeros((2, 50, 1)))[:-7])
    _refused(path, "800 bytes) but 793 bytes follow it (truncated)")


@pytest.mark.parametrize(
    ("arr", "fragment"),
    [
        (np.zeros((2, 3, 1), dtype=[("a", "f8")]), "structured dtype"),
        (np.zeros((2, 3, 1), complex), "complex dtype complex128; real numbers expected"),
        (np.zeros((2, 3, 1), bool), "dtype bool; real numbers"),
        (np.zeros((2, 3, 1), "U3"), "dtype <U3; real numbers"),
    ],
    ids=["structured", "complex", "bool", "str"],
)
def test_non_real_dtypes_are_refused_not_cast(tmp_path, arr, fragment):
    path = tmp_path / "d.npy"
    np.save(path, arr)
    _refused(path, fragment)
    npz = tmp_path / "d.npz"
    np.savez(npz, theta=np.zeros((2, 3, 1)), p=arr)
    _refused(npz, fragment)


def test_object_array_is_not_unpickled(tmp_path):
    path = tmp_path / "o.npy"
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    _refused(path, "cannot read an object array")


def test_zip_bomb_is_refused_from_its_declared_size(tmp_path, monkeypatch):
    # a cap of 1 MiB stands for the 2 GiB one, so the bomb stays small: 64 MiB of zeros
    monkeypatch.setattr(files, "MAX_BYTES", 1 << 20)
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("theta.npy", "w") as fh:
            fh.write(_npy_header((1, 8 << 20, 1)))
            for _ in range(64):
                fh.write(bytes(1 << 20))
    assert path.stat().st_size < 1 << 20
    _refused(path, "member 'theta.npy' inflates to 0.0625 GiB")
    assert _peak_bytes(lambda: load_samples(path)) < 1 << 20


def test_zip_member_lying_about_its_size_stops_at_the_declared_size(tmp_path):
    # the central directory says 208 bytes (header + 10 doubles); the stream inflates to 64 MiB
    body = _npy_header((1, 10, 1)) + bytes(64 << 20)
    path = tmp_path / "lie.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("theta.npy", body)
    raw = bytearray(path.read_bytes())
    for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # local and central headers
        at = raw.index(sig) + off
        raw[at : at + 4] = struct.pack("<I", 208)
    path.write_bytes(bytes(raw))
    _refused(path, "cannot read (BadZipFile: Bad CRC-32")
    assert _peak_bytes(lambda: load_samples(path)) < 1 << 20


def test_too_many_members_and_unexpected_names(tmp_path):
    many = tmp_path / "many.npz"
    np.savez(many, **{f"a{i}": np.zeros((1, 1, 1)) for i in range(files.MAX_MEMBERS + 1)})
    _refused(many, f"{files.MAX_MEMBERS + 1} members; at most {files.MAX_MEMBERS}")
    extra = tmp_path / "extra.npz"
    np.savez(extra, theta=np.zeros((2, 3, 1)), logp=np.zeros((2, 3)))
    _refused(extra, "unexpected arrays ['logp']")
    two = tmp_path / "two.npz"
    np.savez(two, a=np.zeros((2, 3, 1)), b=np.zeros((2, 3, 1)))
    _refused(two, "needs an array named 'theta'")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("chain,draw,x\n", "header but no rows"),
        ("chain,draw,x\nnan,0,1\n", "non-negative integers"),
        ("chain,draw,x\n0.5,0,1\n", "non-negative integers"),
        ("chain,draw,x\n-1,0,1\n", "non-negative integers"),
        ("chain,draw,x\n1e18,0,1\n", "an index 1000000000000000000 with only 1 rows"),
        ("chain,draw,x\n0,0,1\n0,0,2\n", "full (chains, draws) grid"),
        ("chain,draw,x\n0,0,1,2\n", "rows have 4 columns, header 3"),
        ("chain,draw,x\n0,0,1\n0,1,2,3\n", "malformed CSV"),
        ("chain,draw,x\n0,0,abc\n", "malformed CSV"),
        ("chain,draw,p[0]\n0,0,1\n", "no θ column"),
        ("a,b\n", "header must start with 'chain,draw,'"),
    ],
)
def test_csv_garbage(tmp_path, text, fragment):
    path = tmp_path / "s.csv"
    path.write_text(text)
    _refused(path, fragment)


def test_csv_that_is_not_utf8(tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(b"\xff\xfe\x00chain")
    _refused(path, "cannot read (UnicodeDecodeError")


def test_missing_directory_and_unknown_extension(tmp_path):
    assert "cannot read" not in _refused(tmp_path, "not a regular file")
    _refused(tmp_path / "none.npy", "no such file")
    _refused(tmp_path, "not a regular file")
    other = tmp_path / "s.txt"
    other.write_text("1")
    _refused(other, "unsupported extension '.txt'")


def test_nan_draws_are_read_for_the_harness_to_report(tmp_path):
    path = tmp_path / "nan.npy"
    np.save(path, np.full((2, 3, 1), np.nan))
    assert np.isnan(load_samples(path)["theta"]).all()


def test_valid_files_round_trip_as_float64(tmp_path):
    theta = np.arange(24, dtype=np.int32).reshape(2, 4, 3)
    np.save(tmp_path / "a.npy", np.asfortranarray(theta))
    got = load_samples(tmp_path / "a.npy")["theta"]
    assert got.dtype == np.float64 and np.array_equal(got, theta)
    np.savez_compressed(tmp_path / "a.npz", theta=theta, p=-theta, xi=theta[:, :, 0])
    z = load_samples(tmp_path / "a.npz")
    assert np.array_equal(z["p"], -theta) and z["xi"].shape == (2, 4)


LMC = ("--algorithm", "lmc", "--h", "0.1")


def test_control_characters_in_file_names_are_escaped(tmp_path):
    path = tmp_path / "evil\x1b[2J\x07.npy"
    path.write_bytes(b"junk")
    msg = _refused(path, "evil\\x1b[2J\\x07.npy")
    assert "\x1b" not in msg and "\x07" not in msg
    assert display_name("ok ü.npy") == "ok ü.npy"
    out = subprocess.run(
        [sys.executable, "-m", "sgmcmc_verify.cli", "validate-samples", str(path), *LMC],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "\x1b" not in out.stderr and "\x07" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


# -- fuzz: arbitrary and mutated bytes raise only SampleFileError -------------------------

_VALID = {
    ".npy": _npy_bytes(np.arange(12.0).reshape(2, 3, 2)),
    ".csv": b"chain,draw,theta[0],p[0],xi\n0,0,1,2,3\n0,1,4,5,6\n1,0,7,8,9\n1,1,1,2,3\n",
}
_buf = io.BytesIO()
np.savez(_buf, theta=np.ones((2, 3, 1)), p=np.zeros((2, 3, 1)))
_VALID[".npz"] = _buf.getvalue()
_DIR = Path(tempfile.mkdtemp(prefix="sgmcmc-fuzz-"))


def _mutated(base: bytes) -> st.SearchStrategy[bytes]:
    """``base`` with a few bytes overwritten and optionally cut short or extended."""
    edits = st.lists(
        st.tuples(st.integers(0, len(base) - 1), st.integers(0, 255)), min_size=1, max_size=6
    )
    cut = st.one_of(st.none(), st.integers(0, len(base)))
    tail = st.binary(max_size=16)

    def apply(args: tuple[list[tuple[int, int]], int | None, bytes]) -> bytes:
        data = bytearray(base)
        edits_, cut_, tail_ = args
        for i, b in edits_:
            data[i] = b
        return bytes(data[:cut_]) + tail_ if cut_ is not None else bytes(data)

    return st.tuples(edits, cut, tail).map(apply)


def _check_one(suffix: str, data: bytes) -> None:
    path = _DIR / f"f{suffix}"
    path.write_bytes(data)
    try:
        out = load_samples(path)
    except SampleFileError as err:
        assert "\n" not in str(err)
        return
    assert out["theta"].ndim == 3 and all(v.dtype == np.float64 for v in out.values())


@pytest.mark.parametrize("suffix", [".npy", ".npz", ".csv"])
@settings(
    derandomize=True,
    max_examples=700,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_fuzzed_files_raise_only_sample_file_error(suffix, data):
    blob = data.draw(st.one_of(st.binary(max_size=300), _mutated(_VALID[suffix])))
    _check_one(suffix, blob)


# -- ArviZ objects and .nc files (the arviz extra) -------------------------------------


@pytest.fixture(scope="module")
def az():
    pytest.importorskip("arviz")
    import warnings

    with warnings.catch_warnings():  # arviz 0.2x announces its 1.0 refactor on import
        warnings.simplefilter("ignore", FutureWarning)
        import arviz
    return arviz


def test_inference_data_and_its_netcdf_file_read_the_same(az, tmp_path):
    theta = np.arange(10.0).reshape(2, 5)  # labelled (chain, draw): a 1-D θ
    data = az.from_dict(posterior={"theta": theta, "xi": np.ones((2, 5))})
    path = tmp_path / "draws.nc"
    data.to_netcdf(str(path))
    for got in (files.from_inference_data(data), load_samples(path)):
        assert got["theta"].shape == (2, 5, 1) and np.array_equal(got["theta"][..., 0], theta)
        assert got["xi"].shape == (2, 5)


@pytest.mark.parametrize(
    ("posterior", "fragment"),
    [
        ({"theta": np.zeros((2, 3, 1), complex)}, "complex dtype complex128"),
        ({"theta": np.zeros((2, 3)), "logp": np.zeros((2, 3))}, "unexpected posterior variables"),
        ({"a": np.zeros((2, 3)), "b": np.zeros((2, 3))}, "needs a variable named 'theta'"),
    ],
    ids=["complex", "extra", "no-theta"],
)
def test_inference_data_with_bad_variables(az, posterior, fragment):
    with pytest.raises(SampleFileError, match=re.escape(fragment)):
        files.from_inference_data(az.from_dict(posterior=posterior))


def test_inference_data_layout_and_size_are_checked_before_reading(az, monkeypatch):
    with pytest.raises(SampleFileError, match="no posterior group"):
        files.from_inference_data(az.from_dict(prior={"theta": np.zeros((1, 2))}))
    swapped = az.from_dict(posterior={"theta": np.zeros((2, 3, 1))}).posterior
    swapped = swapped.transpose("draw", "chain", "theta_dim_0")
    with pytest.raises(SampleFileError, match=r"dimensions \('draw', 'chain', 'theta_dim_0'\)"):
        files.from_inference_data(swapped)
    monkeypatch.setattr(files, "MAX_BYTES", 100)
    with pytest.raises(SampleFileError, match="the cap is"):
        files.from_inference_data(az.from_dict(posterior={"theta": np.zeros((2, 8, 1))}))


def test_a_nc_that_is_not_netcdf4_is_refused(az, tmp_path):
    path = tmp_path / "x.nc"
    path.write_bytes(b"CDF\x01garbage")
    _refused(path, "not a netCDF-4 (HDF5) file")


@settings(max_examples=100, derandomize=True, deadline=None, database=None)
@given(data=st.data())
def test_fuzzed_netcdf_raises_only_sample_file_error(az, data):
    # corrupt netCDF-4 files: HDF5 errors, and h5netcdf's noisy destructors, stay inside
    if "nc" not in _VALID:
        az.from_dict(posterior={"theta": np.ones((2, 3, 2)), "p": np.zeros((2, 3, 2))}).to_netcdf(
            str(_DIR / "base.nc")
        )
        _VALID["nc"] = (_DIR / "base.nc").read_bytes()
    _check_one(".nc", data.draw(_mutated(_VALID["nc"])))


def test_nc_without_xarray_says_which_extra_to_install(tmp_path, monkeypatch):
    path = tmp_path / "draws.nc"
    path.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(64))
    monkeypatch.setitem(sys.modules, "xarray", None)  # import xarray -> ImportError
    _refused(path, "reading .nc needs xarray: pip install 'sgmcmc-verify[arviz]'")
