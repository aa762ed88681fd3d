"""Reading draws from files (``.npy``, ``.npz``, ``.csv``, ``.nc``) for the harness.

Nothing is ever unpickled.

:func:`load_samples` is the one reader.  Every problem with a file is a
:class:`SampleFileError` with a one-line message (the CLI turns it into exit code 2);
no other exception escapes, whatever the bytes (a derandomised Hypothesis fuzz test in
``tests/test_files.py`` holds it to that).

Limits, checked *before* anything is allocated (issue 14, "input files have a size and
shape cap checked from the header before allocation"):

* an array may hold at most :data:`MAX_BYTES` (2 GiB) as stored and as float64;
  ``.npy`` shapes and dtypes are read from the header (``numpy.lib.format``) and the
  data size is compared with the bytes actually present, so a 192-byte file claiming
  shape (10⁶, 10⁶, 1) is refused without reading on;
* ``.npz`` archives are read member by member with :mod:`zipfile`: at most
  :data:`MAX_MEMBERS` members, each a ``.npy``, unencrypted, whose declared uncompressed
  size is within the cap and equals the size its ``.npy`` header implies (``zipfile``
  never inflates a member past its declared size, so a zip bomb stops at the cap);
* a CSV file may be at most :data:`MAX_CSV_BYTES` (256 MiB) of text;
* ``.nc`` (ArviZ ``to_netcdf``: the ``posterior`` group) is opened lazily with xarray and
  each variable's shape and dtype are checked before its values are read.  It needs the
  ``arviz`` extra, and the netCDF/HDF5 libraries that parse it are not hardened against
  crafted files the way the readers above are: read ``.nc`` only from sources you trust.

In-memory ArviZ objects (``InferenceData``, ``xarray.DataTree``, or an
``xarray.Dataset`` of the posterior) go through :func:`from_inference_data`, with the
same checks.  Their labelled dimensions make ``(chain, draw)`` arrays unambiguous, so a
1-D θ may come without its trailing axis there.

Dtypes: real numbers only (``float``, ``int``, ``uint``).  Complex arrays are refused,
not cast (the cast would silently drop the imaginary part); object, structured, string
and boolean arrays are refused.  Values are not checked for NaN or inf here: the
harness reports non-finite draws itself, as a ``fail`` (a divergence)
(:func:`sgmcmc_verify.validation.core.check_draws`).

File names echoed in messages have their control characters escaped (``\\x1b``), so a
crafted name cannot drive the terminal.
"""

from __future__ import annotations

import contextlib
import gc
import io
import sys
import tokenize
import warnings
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.lib import format as npformat

__all__ = [
    "MAX_BYTES",
    "MAX_CSV_BYTES",
    "MAX_MEMBERS",
    "SampleFileError",
    "from_inference_data",
    "load_samples",
]

#: Largest array accepted, in bytes, both as stored and once converted to float64.
MAX_BYTES = 2 * 1024**3
#: Largest CSV file accepted, in bytes (each value is ≥ 2 bytes of text, 8 as float64,
#: and ``numpy.loadtxt`` holds a few copies while parsing).
MAX_CSV_BYTES = 256 * 1024**2
#: Most members an ``.npz`` archive may have (the layout uses at most three).
MAX_MEMBERS = 16
#: The arrays an ``.npz`` may hold (``theta`` alone may have any name if it is the only one).
NAMES = ("theta", "p", "xi")

# Exceptions numpy, zipfile and zlib raise on malformed bytes; each becomes a
# SampleFileError.  (Listed rather than ``Exception`` so that a bug here still shows.)
_READ_ERRORS = (
    ValueError,
    TypeError,
    KeyError,
    SyntaxError,
    OverflowError,
    UnicodeError,
    EOFError,
    OSError,
    NotImplementedError,
    RuntimeError,
    tokenize.TokenError,
    zipfile.BadZipFile,
    zlib.error,
)


class SampleFileError(ValueError):
    """A sample file is missing, empty, malformed or has a mismatched layout (CLI: exit 2)."""


def display_name(path: str | Path) -> str:
    """``path`` as text safe to print: control and other non-printable characters escaped.

    >>> display_name("a\\x1b[31mb.npy")
    'a\\\\x1b[31mb.npy'
    """
    text = str(path)
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


def _gib(n: int) -> str:
    """A byte count in binary units, e.g. ``7.28 TiB``."""
    for unit, scale in (("EiB", 1024**6), ("PiB", 1024**5), ("TiB", 1024**4), ("GiB", 1024**3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 1024**3:.3g} GiB"


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(err).__name__}: {display_name(line)}" if line else type(err).__name__


def load_samples(path: str | Path, *, key: str | None = None) -> dict[str, np.ndarray]:
    """Read draws in the ArviZ layout (chains, draws, dims) as float64; never unpickles.

    Parameters
    ----------
    path : str or Path
        * ``.npy``: one array (chains, draws, d) — θ;
        * ``.npz``: arrays named ``theta`` (required unless there is only one array),
          ``p``, ``xi`` (no other names);
        * ``.csv``: a header ``chain,draw,<name>[0],...`` then one row per draw; columns
          starting with ``p[`` or named ``xi`` are the momentum and thermostat;
        * ``.nc``: an ArviZ netCDF file; its ``posterior`` group as in
          :func:`from_inference_data` (needs the ``arviz`` extra).
    key : str, optional
        Read θ from this ``.npz`` member or ``.nc`` variable instead of ``theta``.

    Returns
    -------
    dict of str to ndarray
        ``theta`` (chains, draws, d) and, when present, ``p`` and ``xi``, as float64.
        Values may be NaN or inf: the harness reports those itself.

    Raises
    ------
    SampleFileError
        With a one-line message, for every problem: missing, empty, truncated or corrupt
        file, unsupported extension or dtype, an array over :data:`MAX_BYTES`, a wrong
        layout.  No other exception is raised.
    """
    path = Path(path)
    name = display_name(path)
    try:
        if not path.exists():
            raise SampleFileError(f"{name}: no such file")
        if not path.is_file():  # a directory, a FIFO (which would block), a device
            raise SampleFileError(f"{name}: not a regular file")
        size = path.stat().st_size
    except SampleFileError:
        raise
    except (OSError, ValueError) as err:  # ValueError: a NUL byte in the name
        raise SampleFileError(f"{name}: cannot read ({_first_line(err)})") from None
    if size == 0:
        raise SampleFileError(f"{name}: the file is empty")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npy":
            with open(path, "rb") as fh:
                arrays = {"theta": _read_npy(fh, size, name)}
        elif suffix == ".npz":
            arrays = _read_npz(path, name, key)
        elif suffix == ".csv":
            arrays = _read_csv(path, size, name)
        elif suffix == ".nc":
            return _read_netcdf(path, name, key)
        else:
            raise SampleFileError(
                f"{name}: unsupported extension {display_name(suffix)!r} (.npy, .npz, .csv, .nc)"
            )
    except SampleFileError:
        raise
    except MemoryError:  # the caps make this unlikely; a one-line error all the same
        raise SampleFileError(f"{name}: not enough memory to read it") from None
    except _READ_ERRORS as err:
        raise SampleFileError(f"{name}: cannot read ({_first_line(err)})") from None
    return _layout(arrays, name)


def _layout(arrays: dict[str, np.ndarray], name: str) -> dict[str, np.ndarray]:
    """Check the (chains, draws, ...) layout and convert to float64."""
    th = arrays["theta"]
    if th.ndim != 3:
        raise SampleFileError(
            f"{name}: theta has shape {th.shape}; the ArviZ layout (chains, draws, d) is required"
        )
    if min(th.shape) == 0:
        raise SampleFileError(f"{name}: theta has shape {th.shape}, with an empty axis")
    out = {}
    for k, v in arrays.items():
        if v.ndim < 2 or v.shape[:2] != th.shape[:2]:
            raise SampleFileError(
                f"{name}: {k} has shape {v.shape}, but theta's (chains, draws) is {th.shape[:2]}"
            )
        out[k] = np.asarray(v, dtype=np.float64)
    return out


def _check_dtype(dtype: np.dtype, what: str) -> None:
    """Real numbers only: refuse object, structured, complex, bool, strings, datetimes."""
    if dtype.hasobject:
        raise SampleFileError(f"{what}: cannot read an object array (it would need unpickling)")
    if dtype.fields is not None or dtype.subdtype is not None:
        raise SampleFileError(f"{what}: structured dtype {dtype}; a plain numeric array expected")
    if dtype.kind == "c":
        raise SampleFileError(
            f"{what}: complex dtype {dtype}; real numbers expected (not cast: that would "
            "drop the imaginary part)"
        )
    if dtype.kind not in "fiu":
        raise SampleFileError(f"{what}: dtype {dtype}; real numbers (float or int) expected")


def _read_npy(fh: IO[bytes], available: int, what: str) -> np.ndarray:
    """One ``.npy`` from ``fh``, whose data must fill exactly the ``available`` bytes.

    The header is parsed first; the shape and dtype are checked against
    :data:`MAX_BYTES` and against ``available`` before the data are read.
    """
    version = npformat.read_magic(fh)
    if version in ((1, 0), (2, 0)):
        read_header = (
            npformat.read_array_header_1_0 if version == (1, 0) else npformat.read_array_header_2_0
        )
        with warnings.catch_warnings():
            # numpy warns (and reads on) when a header needs its Python 2 repair
            warnings.simplefilter("ignore", UserWarning)
            shape, fortran, dtype = read_header(fh)
    else:  # 3.0 is written only for structured dtypes with non-Latin-1 field names
        raise SampleFileError(f"{what}: unsupported .npy format version {version[0]}.{version[1]}")
    _check_dtype(dtype, what)
    count = 1
    for n in shape:  # Python ints: no overflow, however large the header claims
        count *= n
    nbytes, as_float = count * dtype.itemsize, count * 8
    if max(nbytes, as_float) > MAX_BYTES:
        raise SampleFileError(
            f"{what}: the header claims shape {shape} ({_gib(max(nbytes, as_float))} as "
            f"float64); the cap is {_gib(MAX_BYTES)} (sgmcmc_verify.validation.files.MAX_BYTES)"
        )
    left = available - fh.tell()
    if left != nbytes:
        raise SampleFileError(
            f"{what}: the header claims shape {shape} of {dtype} ({nbytes} bytes) but "
            f"{left} bytes follow it ({'truncated' if left < nbytes else 'trailing data'})"
        )
    data = fh.read(nbytes)
    if len(data) != nbytes:
        raise SampleFileError(f"{what}: truncated ({len(data)} of {nbytes} data bytes)")
    arr = np.frombuffer(data, dtype=dtype, count=count)
    return arr.reshape(shape, order="F" if fortran else "C")


def _read_npz(path: Path, name: str, key: str | None) -> dict[str, np.ndarray]:
    """An ``.npz`` read member by member, each checked before it is inflated."""
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(path) as zf:
        members = zf.infolist()
        if not members:
            raise SampleFileError(f"{name}: the .npz archive has no members")
        if len(members) > MAX_MEMBERS:
            raise SampleFileError(
                f"{name}: the .npz has {len(members)} members; at most {MAX_MEMBERS} expected"
            )
        total = 0
        for info in members:
            member = display_name(info.filename)
            what = f"{name}: member {member!r}"
            if not info.filename.endswith(".npy") or info.is_dir():
                raise SampleFileError(f"{what} is not a .npy array")
            if info.flag_bits & 0x1:
                raise SampleFileError(f"{what} is encrypted")
            total += info.file_size
            if info.file_size > MAX_BYTES + 65536 or total > 2 * (MAX_BYTES + 65536):
                raise SampleFileError(
                    f"{what} inflates to {_gib(info.file_size)} (archive: {_gib(total)}); "
                    f"the cap is {_gib(MAX_BYTES)} per array"
                )
            label = info.filename[: -len(".npy")]
            if label in arrays:
                raise SampleFileError(f"{what} appears twice")
            with zf.open(info) as fh:
                arrays[label] = _read_npy(_Counted(fh), info.file_size, what)
    wanted = key or "theta"
    if wanted not in arrays:
        if key is not None or len(arrays) != 1:
            raise SampleFileError(
                f"{name}: .npz needs an array named {wanted!r} "
                f"(found {sorted(display_name(k) for k in arrays)})"
            )
        return {"theta": next(iter(arrays.values()))}
    out = {"theta": arrays.pop(wanted)}
    extra = sorted(k for k in arrays if k not in NAMES[1:])
    if extra:
        raise SampleFileError(
            f"{name}: unexpected arrays {[display_name(k) for k in extra]} in the .npz "
            f"(allowed: {', '.join(NAMES)})"
        )
    out.update(arrays)
    return out


class _Counted(io.RawIOBase):
    """A read-only stream that knows its position (zip members cannot ``tell``)."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh, self._pos = fh, 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        data = self._fh.read(n)
        self._pos += len(data)
        return data

    def tell(self) -> int:
        return self._pos


def _read_csv(path: Path, size: int, name: str) -> dict[str, np.ndarray]:
    if size > MAX_CSV_BYTES:
        raise SampleFileError(
            f"{name}: {_gib(size)} of CSV; the cap is {_gib(MAX_CSV_BYTES)} "
            "(write large draws as .npy)"
        )
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
        rest = fh.read()
    if len(header) < 3 or header[0].strip() != "chain" or header[1].strip() != "draw":
        raise SampleFileError(
            f"{name}: the CSV header must start with 'chain,draw,' then one column per dimension"
        )
    if not rest.strip():  # (numpy.loadtxt would only warn)
        raise SampleFileError(f"{name}: the CSV has a header but no rows")
    try:
        data = np.loadtxt(io.StringIO(rest), delimiter=",", ndmin=2, dtype=np.float64)
    except ValueError as err:
        raise SampleFileError(f"{name}: malformed CSV ({_first_line(err)})") from None
    if data.size == 0:
        raise SampleFileError(f"{name}: the CSV has a header but no rows")
    if data.shape[1] != len(header):
        raise SampleFileError(f"{name}: rows have {data.shape[1]} columns, header {len(header)}")
    index = data[:, :2]
    rows = data.shape[0]
    # indices must be exact non-negative integers below the row count before any cast
    if not (np.all(np.isfinite(index)) and np.all(index >= 0) and np.all(index == np.floor(index))):
        raise SampleFileError(f"{name}: chain and draw must be non-negative integers")
    if index.max() >= rows:
        raise SampleFileError(
            f"{name}: chain/draw indices do not form a full (chains, draws) grid "
            f"(an index {int(index.max())} with only {rows} rows)"
        )
    chain, draw = index[:, 0].astype(np.int64), index[:, 1].astype(np.int64)
    C, D = int(chain.max()) + 1, int(draw.max()) + 1
    if C * D != rows or np.unique(chain * D + draw).size != rows:
        raise SampleFileError(
            f"{name}: chain/draw indices do not form a full (chains, draws) grid "
            f"({rows} rows for {C} chains × {D} draws)"
        )
    cols = [c.strip() for c in header[2:]]
    vals = np.empty((C, D, len(cols)))
    vals[chain, draw] = data[:, 2:]
    pcols = [i for i, c in enumerate(cols) if c.startswith("p[")]
    xcols = [i for i, c in enumerate(cols) if c == "xi"]
    tcols = [i for i in range(len(cols)) if i not in pcols and i not in xcols]
    if not tcols:
        raise SampleFileError(f"{name}: the CSV has no θ column (only p[...] and xi)")
    out = {"theta": vals[:, :, tcols]}
    if pcols:
        out["p"] = vals[:, :, pcols]
    if xcols:
        out["xi"] = vals[:, :, xcols[0]]
    return out


def from_inference_data(
    data: Any, *, key: str | None = None, name: str = "InferenceData"
) -> dict[str, np.ndarray]:
    """The draws of an ArviZ object's ``posterior`` group, checked as :func:`load_samples` does.

    Parameters
    ----------
    data : arviz.InferenceData, xarray.DataTree or xarray.Dataset
        An object with a ``posterior`` group (or the posterior ``Dataset`` itself) whose
        variables have dimensions ``(chain, draw, ...)``: ``theta`` (or the only
        variable, or ``key``), and optionally ``p`` and ``xi``.  A θ of dimensions
        ``(chain, draw)`` is a 1-D θ.
    key : str, optional
        The variable that holds θ.
    name : str
        What to call the object in messages.

    Returns
    -------
    dict of str to ndarray
        As :func:`load_samples`.

    Raises
    ------
    SampleFileError
        One line: no posterior group, dimensions other than ``(chain, draw, ...)``, a
        non-real dtype, more than :data:`MAX_BYTES`, unexpected variables.
    """
    name = display_name(name)
    posterior = _posterior(data, name)
    variables = {str(k): posterior[k] for k in posterior.data_vars}
    wanted = key or "theta"
    if wanted not in variables:
        if key is not None or len(variables) != 1:
            raise SampleFileError(
                f"{name}: the posterior needs a variable named {wanted!r} "
                f"(found {sorted(display_name(k) for k in variables)})"
            )
        wanted = next(iter(variables))
    extra = sorted(k for k in variables if k != wanted and k not in NAMES[1:])
    if extra:
        raise SampleFileError(
            f"{name}: unexpected posterior variables {[display_name(k) for k in extra]} "
            f"(allowed: {', '.join(NAMES)})"
        )
    arrays = {}
    for label, var in variables.items():
        what = f"{name}: posterior variable {display_name(label)!r}"
        if tuple(var.dims[:2]) != ("chain", "draw"):
            raise SampleFileError(
                f"{what} has dimensions {tuple(map(str, var.dims))}; (chain, draw, ...) required"
            )
        _check_dtype(np.dtype(var.dtype), what)
        count = int(np.prod(var.shape, dtype=object))
        if max(count * np.dtype(var.dtype).itemsize, count * 8) > MAX_BYTES:
            raise SampleFileError(
                f"{what} has shape {tuple(var.shape)}; the cap is {_gib(MAX_BYTES)} as float64"
            )
        values = np.asarray(var.values)  # read only now, after the checks
        if label == wanted and values.ndim == 2:  # labelled (chain, draw): a 1-D θ
            values = values[:, :, None]
        arrays["theta" if label == wanted else label] = values
    return _layout(arrays, name)


def _posterior(data: Any, name: str) -> Any:
    """The posterior ``xarray.Dataset`` of an InferenceData, a DataTree or a Dataset."""
    if hasattr(data, "data_vars"):  # already a Dataset
        return data
    try:
        group = data["posterior"]
    except (KeyError, TypeError, AttributeError):
        group = getattr(data, "posterior", None)
    if group is None:
        raise SampleFileError(f"{name}: no posterior group")
    if hasattr(group, "to_dataset"):  # a DataTree node
        group = group.to_dataset()
    if not hasattr(group, "data_vars"):
        raise SampleFileError(f"{name}: the posterior is not an xarray Dataset")
    return group


def _read_netcdf(path: Path, name: str, key: str | None) -> dict[str, np.ndarray]:
    try:
        import xarray
    except ImportError:
        raise SampleFileError(
            f"{name}: reading .nc needs xarray: pip install 'sgmcmc-verify[arviz]'"
        ) from None
    with open(path, "rb") as fh:
        if fh.read(8) != b"\x89HDF\r\n\x1a\n":
            raise SampleFileError(
                f"{name}: not a netCDF-4 (HDF5) file; ArviZ's to_netcdf writes netCDF-4"
            )
    # The message is built inside the quiet block and raised outside it, so that no
    # exception (hence no traceback frame) keeps the half-built file objects alive.
    with _quiet_destructors():
        try:
            # lazily: only metadata is read until from_inference_data has checked the shapes
            with xarray.open_dataset(path, group="posterior") as ds:
                return from_inference_data(ds, key=key, name=str(path))
        except SampleFileError as err:
            message = str(err)
        except MemoryError:
            message = f"{name}: not enough memory to read it"
        except (*_READ_ERRORS, ImportError) as err:  # ImportError: no netCDF engine
            message = f"{name}: cannot read ({_first_line(err)})"
    raise SampleFileError(message)


@contextlib.contextmanager
def _quiet_destructors() -> Iterator[None]:
    """Silence exceptions raised in destructors while a netCDF file is opened.

    h5netcdf's ``File.__del__`` raises ``AttributeError`` when its constructor failed on
    a corrupt file, which Python prints as "Exception ignored ... Traceback" on stderr;
    the real error is already a :class:`SampleFileError`.  The hook is restored, after a
    collection of the half-built objects, when the block ends.
    """
    previous = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None
    try:
        yield
    finally:
        gc.collect(0)
        sys.unraisablehook = previous
