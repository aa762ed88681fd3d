"""Validate a user's function in a process of its own, which a timeout can kill (issue 11).

:func:`~sgmcmc_verify.validation.core.validate` calls the user's function in a daemon
thread: a per-call timeout stops *waiting* for it, but cannot stop it.  A sampler that
hangs while holding the GIL, leaves a non-daemon thread behind, or kills its own process
would keep (or take down) the caller.  :func:`validate_isolated` runs the whole
validation in a child process instead:

* the function is named ``MODULE:FUNCTION`` or ``path/to/file.py:FUNCTION``
  (:func:`load_function`), so the child imports it itself — nothing is pickled, and a
  closure is never needed;
* the child is a fresh interpreter (``python -c``, not a fork: a fork is unsafe once JAX
  or PyTorch has started its threads; not multiprocessing's ``spawn`` either, which
  re-runs the caller's unguarded ``__main__``) in a session of its own, so killing its
  process group also stops any process the user's code started; messages come back on a
  pipe of their own, so the user's prints cannot corrupt them;
* before and after each call of the user's function the child sends a numbered
  heartbeat, and a "gave up" one when its own per-call timeout ends the wait (the call
  is then an ``error`` and the validation goes on; unless the next call has already
  begun, whose "call" message moves the parent's watchdog on); the parent kills the child when a
  call has neither returned nor been given up after ``timeout + grace`` seconds (a child
  stopped, or stuck without releasing the GIL), or when nothing arrives for ``slack``
  seconds between calls (the harness's own work); a given-up call that returns later
  does not close the call in progress;
* the child sends the :class:`~sgmcmc_verify.validation.report.ValidationReport` and
  leaves with ``os._exit``, so threads the user's code left running cannot keep it
  alive; a child that dies without a report is an :class:`ImplementationError` with its
  exit code.

The CLI's ``sgmcmc-verify validate`` uses it.  From Python, :func:`validate` with a
callable stays in-process (closures and notebooks work); pass a ``"module:function"``
string to :func:`validate_isolated` for a killable run.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import itertools
import math
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from .core import ImplementationError, validate
from .report import ValidationReport

__all__ = ["GRACE", "SLACK", "STARTUP", "load_function", "validate_isolated"]

#: Seconds allowed between two messages from the child outside a call of the user's
#: function: the harness's own work between calls (exact laws, diagnosis: seconds in the
#: quick profile, more on a loaded machine).
SLACK = 120.0
#: Seconds allowed beyond the per-call timeout for a call's "returned" (or "gave up")
#: message: the child's own timeout ends a hung call at ``timeout`` and reports it; only a
#: child that cannot (stopped, or stuck without releasing the GIL) needs the watchdog.
GRACE = 30.0
#: Seconds allowed for the child to start and import the user's module (numpy, this
#: package, and whatever the module imports: JAX or PyTorch take seconds).
STARTUP = 300.0


def load_function(target: str) -> Callable[..., Any]:
    """The function named by ``MODULE:FUNCTION`` or ``path/to/file.py:FUNCTION``.

    A module is imported with the current directory first on ``sys.path``.  Any failure,
    including an exception raised while the user's module is imported, is a one-line
    :class:`ValueError`.
    """
    module_name, sep, name = target.rpartition(":")
    if not sep or not module_name or not name:
        raise ValueError(f"expected MODULE:FUNCTION or FILE.py:FUNCTION, got {target!r}")
    try:
        if module_name.endswith(".py") or os.sep in module_name:
            path = Path(module_name)
            if not path.is_file():
                raise ValueError(f"cannot import {target!r}: no such file {module_name!r}")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None:
                raise ValueError(f"cannot import {target!r}: not a Python file")
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
        else:
            cwd = os.getcwd()
            if cwd not in sys.path:
                sys.path.insert(0, cwd)
            module = importlib.import_module(module_name)
        fn = getattr(module, name)
    except ValueError:
        raise
    except AttributeError:
        raise ValueError(f"cannot use {target!r}: the module has no {name!r}") from None
    except BaseException as err:  # the user's module may raise anything while importing
        if isinstance(err, KeyboardInterrupt):
            raise
        msg = f"cannot import {target!r}: {type(err).__name__}: {err}"
        raise ValueError(msg.splitlines()[0]) from None
    if not callable(fn):
        raise ValueError(f"cannot use {target!r}: {name!r} is not callable")
    return fn


def _child_main() -> None:
    """Entry point of the child interpreter: ``python -c ... FD`` with the job on stdin."""
    conn = Connection(int(sys.argv[1]), readable=False)
    target, cwd, algorithm, kwargs = pickle.load(sys.stdin.buffer)
    _child(conn, target, cwd, algorithm, kwargs)


class _GiveUpWatch:
    """One thread that reports call ``k`` given up when it outlives the per-call timeout.

    A timer thread per call cost a thread start and a wake-up per call of the user's
    function (hundreds in step mode).  This thread sleeps until the deadline of the call
    it last saw and is woken only when a call starts while it is idle; a call that ends
    first is forgotten.  A newer call replacing one that is about to be given up is
    harmless: its "call" message already moves the parent's watchdog on.
    """

    def __init__(self, timeout: float, on_give_up: Callable[[int], None]) -> None:
        self.timeout = timeout
        self.on_give_up = on_give_up
        self.cond = threading.Condition()
        self.current: tuple[int, float] | None = None  # (call number, deadline)
        self.idle = True
        threading.Thread(target=self._run, daemon=True, name="sgmcmc-give-up").start()

    def start(self, k: int) -> None:
        with self.cond:
            self.current = (k, time.monotonic() + self.timeout)
            if self.idle:
                self.cond.notify()

    def stop(self, k: int) -> None:
        with self.cond:
            if self.current is not None and self.current[0] == k:
                self.current = None

    def _run(self) -> None:
        while True:
            with self.cond:
                if self.current is None:
                    self.idle = True
                    self.cond.wait()
                    self.idle = False
                    continue
                k, deadline = self.current
                left = deadline - time.monotonic()
                if left > 0:
                    self.cond.wait(left)
                    continue
                self.current = None
            self.on_give_up(k)  # outside the lock: it writes to the pipe


def _child(conn: Connection, target: str, cwd: str, algorithm: str | None, kwargs: dict) -> None:
    """The child process: load, validate with heartbeats, send the outcome, ``os._exit``."""
    code = 0
    lock = threading.Lock()  # a timed-out call's thread may still report while main sends

    def send(kind: str, value: Any) -> None:
        with lock:
            conn.send((kind, value))

    try:
        os.chdir(cwd)
        try:
            fn = load_function(target)
        except ValueError as err:
            send("usage", str(err))
            return

        calls = itertools.count(1)
        timeout = kwargs.get("timeout")

        def gave_up(k: int) -> None:
            try:
                send("gave_up", k)
            except (OSError, ValueError):  # the report already went and the pipe is closed
                pass

        watch = _GiveUpWatch(timeout, gave_up) if timeout is not None else None

        @functools.wraps(fn)  # keeps the signature validate() inspects (via __wrapped__)
        def beating(*args: Any, **kw: Any) -> Any:
            # numbered, so that a timed-out call returning later cannot close a newer one;
            # "gave_up" when the harness's own per-call timeout ends the wait, so that its
            # work after a hung call has the between-calls allowance, not the call's
            k = next(calls)
            send("call", k)
            if watch is not None:
                watch.start(k)
            try:
                return fn(*args, **kw)
            finally:
                if watch is not None:
                    watch.stop(k)
                send("returned", k)

        send("loaded", None)
        try:
            rep = validate(beating, algorithm, **kwargs)
        except ImplementationError as err:
            send("implementation", str(err).splitlines()[0])
            return
        except (ValueError, TypeError, KeyError) as err:
            # a KeyError's str() is the repr of its key: quoted
            msg = str(err).strip("'\"") if isinstance(err, KeyError) else str(err)
            send("usage", msg.splitlines()[0])
            return
        send("report", rep)
    except BaseException as err:  # never a traceback from the child: the parent reports it
        code = 1
        try:
            send("internal", f"{type(err).__name__}: {err}".splitlines()[0])
        except Exception:
            pass
    finally:
        try:
            conn.close()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            # threads the user's code left running (daemon or not) must not keep it alive
            os._exit(code)


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's process group (the child and whatever it started), then reap."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass


def validate_isolated(
    target: str,
    algorithm: str | None = None,
    *,
    timeout: float | None = 120.0,
    slack: float = SLACK,
    grace: float = GRACE,
    **kwargs: Any,
) -> ValidationReport:
    """:func:`~sgmcmc_verify.validation.core.validate` of ``target`` in a killable child.

    Parameters
    ----------
    target : str
        ``MODULE:FUNCTION`` or ``path/to/file.py:FUNCTION`` (imported in the child, with
        the caller's working directory first on ``sys.path``).
    algorithm : str, optional
        As for ``validate``.
    timeout : float or None
        Per-call timeout of the user's function, in seconds (``None``: no limit).
    slack : float
        Seconds allowed between two messages of the child outside a call of the user's
        function (:data:`SLACK`).
    grace : float
        Seconds allowed beyond ``timeout`` for a call to return (:data:`GRACE`): the
        parent kills the child after ``timeout + grace`` seconds in one call.
    **kwargs
        Every other keyword of ``validate`` (mode, params, profile, seed, hs, …).

    Returns
    -------
    ValidationReport

    Raises
    ------
    ValueError
        Bad input: ``target`` cannot be imported, or an argument is invalid (one line;
        the CLI's exit code 2).
    ImplementationError
        The user's function raised, returned garbage, did not return within ``timeout``
        (its process is killed), or its process died (with the exit code).
    """
    if not isinstance(target, str):
        raise ValueError(f"target must be a 'MODULE:FUNCTION' string, got {type(target).__name__}")
    if timeout is not None and not (
        isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and 0 < timeout <= threading.TIMEOUT_MAX  # the child's waits overflow beyond it
    ):
        raise ValueError(
            f"timeout must be a positive number of seconds (at most {threading.TIMEOUT_MAX:g}) "
            f"or None, got {timeout!r}"
        )
    for name, value in (("slack", slack), ("grace", grace)):
        if not (isinstance(value, int | float) and 0 < value < math.inf):
            raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    r, w = os.pipe()
    job = pickle.dumps((target, os.getcwd(), algorithm, {"timeout": timeout, **kwargs}))
    code = "from sgmcmc_verify.validation.isolated import _child_main; _child_main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(w)],
        stdin=subprocess.PIPE,
        pass_fds=(w,),
        start_new_session=True,  # its own process group, and no SIGINT from the terminal
    )
    os.close(w)
    parent = Connection(r, writable=False)
    assert proc.stdin is not None
    try:
        proc.stdin.write(job)
        proc.stdin.close()
    except BrokenPipeError:  # the child died at start: reported below from its exit code
        pass
    call_limit = (timeout if timeout is not None else float("inf")) + grace
    started = in_call = False
    open_call = None  # the number of the call in progress
    try:
        deadline = time.monotonic() + STARTUP
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                _kill_group(proc)
                if not started:
                    what = f"did not start (import {target!r}) within {STARTUP:g} s"
                elif in_call:
                    what = (
                        f"did not return within {call_limit:g} s "
                        f"(per-call timeout {timeout} s + {grace:g} s)"
                    )
                else:
                    what = f"sent nothing for {slack:g} s between calls"
                raise ImplementationError(f"{what}; its process was killed")
            try:
                ready = parent.poll(min(left, 1.0))
                msg = parent.recv() if ready else None
            except (EOFError, OSError):  # the child died without a word
                raise ImplementationError(
                    f"the implementation's process ended without a result (exit code {proc.wait()})"
                ) from None
            if msg is None:
                continue
            kind, value = msg
            if kind in ("returned", "gave_up") and value != open_call:
                continue  # a call given up earlier returning late: not the one in progress
            if kind in ("loaded", "call", "returned", "gave_up"):
                started, in_call = True, kind == "call"
                open_call = value if in_call else None
                deadline = time.monotonic() + (call_limit if in_call else slack)
                continue
            if kind == "report":
                return value
            if kind == "usage":
                raise ValueError(value)
            if kind == "implementation":
                raise ImplementationError(value)
            raise ImplementationError(f"the validation's process failed: {value}")
    finally:
        parent.close()
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
