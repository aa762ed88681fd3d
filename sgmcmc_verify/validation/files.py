"""Reading draws from files (``.npy``, ``.npz``, ``.csv``) for the harness; never unpickles.

:func:`load_samples` is the one reader; every problem with a file is a
:class:`SampleFileError` with a one-line message (the CLI turns it into exit code 2).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["SampleFileError", "load_samples"]


class SampleFileError(ValueError):
    """A sample file is missing, empty, malformed or has a mismatched layout (CLI: exit 2)."""


def load_samples(path: str | Path, *, key: str | None = None) -> dict[str, np.ndarray]:
    """Read draws in the ArviZ layout (chains, draws, dims); never unpickles.

    * ``.npy``: one array (chains, draws, d) — θ;
    * ``.npz``: arrays named ``theta`` (required unless only one array), ``p``, ``xi``;
    * ``.csv``: a header ``chain,draw,<name>[0],...`` then one row per draw; columns
      starting with ``p[`` or named ``xi`` are the momentum and thermostat.

    Raises :class:`SampleFileError` with a one-line message on any problem.
    """
    path = Path(path)
    if not path.is_file():
        raise SampleFileError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise SampleFileError(f"{path}: the file is empty")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npy":
            arrays = {"theta": np.load(path, allow_pickle=False)}
        elif suffix == ".npz":
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
            if "theta" not in arrays:
                if len(arrays) != 1:
                    raise SampleFileError(
                        f"{path}: .npz needs an array named 'theta' (found {sorted(arrays)})"
                    )
                arrays = {"theta": next(iter(arrays.values()))}
        elif suffix == ".csv":
            arrays = _load_csv(path)
        else:
            raise SampleFileError(f"{path}: unsupported extension {suffix!r} (.npy, .npz, .csv)")
    except SampleFileError:
        raise
    except ValueError as err:  # numpy: pickled object arrays, corrupt headers
        msg = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise SampleFileError(f"{path}: cannot read ({msg})") from None
    except (OSError, EOFError) as err:
        raise SampleFileError(f"{path}: cannot read ({type(err).__name__}: {err})") from None
    if key is not None:
        arrays = {"theta": arrays[key]} if key in arrays else arrays
    th = arrays["theta"]
    if th.dtype.kind not in "fiu":
        raise SampleFileError(f"{path}: theta has dtype {th.dtype}; numbers expected")
    if th.ndim != 3:
        raise SampleFileError(
            f"{path}: theta has shape {th.shape}; the ArviZ layout (chains, draws, d) is required"
        )
    if min(th.shape) == 0:
        raise SampleFileError(f"{path}: theta has shape {th.shape}, with an empty axis")
    out = {}
    for k, v in arrays.items():
        v = np.asarray(v, dtype=np.float64)
        if v.shape[:2] != th.shape[:2]:
            raise SampleFileError(
                f"{path}: {k} has shape {v.shape}, but theta's (chains, draws) is {th.shape[:2]}"
            )
        out[k] = v
    return out


def _load_csv(path: Path) -> dict[str, np.ndarray]:
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
    if len(header) < 3 or header[0].strip() != "chain" or header[1].strip() != "draw":
        raise SampleFileError(
            f"{path}: the CSV header must start with 'chain,draw,' then one column per dimension"
        )
    try:
        data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2, dtype=np.float64)
    except ValueError as err:
        raise SampleFileError(f"{path}: malformed CSV ({str(err).splitlines()[0]})") from None
    if data.size == 0:
        raise SampleFileError(f"{path}: the CSV has a header but no rows")
    if data.shape[1] != len(header):
        raise SampleFileError(f"{path}: rows have {data.shape[1]} columns, header {len(header)}")
    chain, draw = data[:, 0].astype(int), data[:, 1].astype(int)
    C, D = chain.max() + 1, draw.max() + 1
    if chain.min() < 0 or draw.min() < 0 or C * D != data.shape[0]:
        raise SampleFileError(
            f"{path}: chain/draw indices do not form a full (chains, draws) grid "
            f"({data.shape[0]} rows for {C} chains × {D} draws)"
        )
    cols = [c.strip() for c in header[2:]]
    vals = np.full((C, D, len(cols)), np.nan)
    vals[chain, draw] = data[:, 2:]
    pcols = [i for i, c in enumerate(cols) if c.startswith("p[")]
    xcols = [i for i, c in enumerate(cols) if c == "xi"]
    tcols = [i for i in range(len(cols)) if i not in pcols and i not in xcols]
    out = {"theta": vals[:, :, tcols]}
    if pcols:
        out["p"] = vals[:, :, pcols]
    if xcols:
        out["xi"] = vals[:, :, xcols[0]]
    return out
