"""The sweep's workers on a Ray cluster (`sweep --ray ADDRESS`): pool.py's contract, past one machine.

Each config is one Ray task running the local pool's own `pool._work` (a `rows.row` on
`Request.from_ref`), so a row, its figures and what it leaves in the cache are the local pool's.
As there, a config whose compile raises, whose worker process dies, or that runs past --timeout
is that config's failure alone: tasks are never retried, and one past its time is cancelled with
its process killed (`ray.cancel(force=True)`). At most `workers` tasks are in flight, so each one
starts when it is sent and its time limit counts from then, as pebble's does.

ADDRESS: `local` starts a Ray instance in this process (`workers` CPUs, on 127.0.0.1, its files in
a temporary folder of our own) and stops it afterwards; `auto` or a cluster's address
(`ray://host:10001`, `host:6379`) connects to a running cluster, ships the playground and kernels
packages to its workers (runtime_env py_modules) and only disconnects afterwards. The cluster's
nodes need the same Triton; a kernel given as a file must be at the same path on them (a shared
file system), or that config fails saying so. A remote node compiles into its own Triton cache, so
a rerun here finds only what a local instance compiled.

Ray is optional (`pip install 'triton-playground[ray]'`): only this module imports it.
"""
from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from ..errors import UserError
from . import pool, rows

INSTALL = "pip install 'triton-playground[ray]'"
POLL_S = 0.5                     # how often a wait wakes to stop configs past their time limit
# ray.exceptions that say the config's worker process (or its node) went away: that config's failure
DIED = ("WorkerCrashedError", "NodeDiedError", "LocalRayletDiedError", "OutOfMemoryError")


def check(address: str):
    """Ray, for a well-formed address; or the one-line UserError that says what is wrong (how to install it)."""
    if not address.strip():
        raise UserError("ray: name an address: local, auto or a cluster's (ray://HOST:10001, HOST:6379)", param="ray")
    if address not in ("local", "auto"):
        _host_port(address)
    try:
        import ray
    except ImportError:
        raise UserError(f"ray needs Ray, which is not installed: {INSTALL}", param="ray") from None
    return ray


PROBE_S = 5.0                    # how long a cluster's address may take to accept a connection


def _host_port(address: str) -> tuple[str, int]:
    """(host, port) of `ray://HOST:PORT` or `HOST:PORT`; a UserError for anything else."""
    rest = address.removeprefix("ray://")
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise UserError(f"ray {address}: not an address: local, auto, ray://HOST:10001 or HOST:6379", param="ray")
    return host.strip("[]"), int(port)


def _probe(address: str, given: str) -> None:
    """A cluster's address must accept a connection before ray.init is asked to join it: Ray itself retries
    an address where nothing listens for minutes, printing its C++ warnings all the while. `given` is what
    --ray said (`auto` joins RAY_ADDRESS when it is set)."""
    import socket
    try:
        host, port = _host_port(address)
    except UserError:
        if given == address:
            raise
        return                            # RAY_ADDRESS in a form of Ray's own: Ray reads it
    try:
        socket.create_connection((host, port), timeout=PROBE_S).close()
    except OSError as e:
        why = e.strerror or type(e).__name__.replace("Error", " error").lower()
        via = " (RAY_ADDRESS)" if given != address else ""
        raise UserError(f"ray {given}: no Ray cluster answers at {host}:{port}{via} ({why.lower()}); start "
                        f"one with `ray start --head`, or use `ray` local", param="ray") from None


def _token_auth(ray) -> None:
    """Ray 2.59 and later start a cluster with token authentication, but a driver sends the token only to a
    cluster it found itself (`auto`), never to one named by its address (ray/_private/worker.py: "an explicit
    address ... never does"), which then refuses it for a minute of retries. Where a token is at hand
    (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token) and RAY_AUTH_MODE is unset, Ray's own step for
    `auto` is taken for the address too; a cluster without authentication ignores the token. Older Rays
    have no such step."""
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


def _compile(task: dict) -> dict:
    """Runs in a Ray worker: the local pool's work, exactly."""
    return pool._work(task)


def in_ray(tasks: list[dict], workers: int, finish, timeout: float | None = None, address: str = "local",
           work=None) -> int:
    """Run tasks as Ray tasks, at most `workers` at once; `finish(task, row)` as each completes.

    `work` (a module-level function of a task) replaces the sweep's compile: `check` sends its solutions so.
    Returns how many ran at once (a cluster may have fewer CPUs than `workers`). If this is
    interrupted (Ctrl-C, SIGTERM), the tasks in flight are cancelled, their processes killed,
    and a Ray instance started here is stopped with all its processes.
    """
    ray = check(address)
    with _signal_named(), _session(ray, address, workers) as (width, runtime_env):
        remote = ray.remote(work or _compile).options(max_retries=0, num_cpus=1, runtime_env=runtime_env)
        queue = sorted(tasks, key=lambda t: t["index"])[::-1]      # popped from the end, in order
        flight: dict = {}                                           # ref -> (task, deadline)
        try:
            while queue or flight:
                while queue and len(flight) < width:
                    task = queue.pop()
                    flight[remote.remote(task)] = (task, None if timeout is None else time.monotonic() + timeout)
                ready, _ = ray.wait(list(flight), num_returns=1, timeout=_wait_s(flight))
                if ready:     # and whatever else finished meanwhile, delivered in the sweep's order
                    ready, _ = ray.wait(list(flight), num_returns=len(flight), timeout=0)
                for ref in sorted(ready, key=lambda r: flight[r][0]["index"]):
                    task, _ = flight.pop(ref)
                    finish(task, _result(ray, ref))
                now = time.monotonic()
                for ref in [r for r, (_, deadline) in flight.items() if deadline is not None and deadline <= now]:
                    task, _ = flight.pop(ref)
                    ray.cancel(ref, force=True)       # kills the worker process; Ray starts another
                    finish(task, pool._timed_out(timeout))
        except BaseException:
            for ref in flight:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
    return width


def _wait_s(flight: dict) -> float:
    deadlines = [d for _, d in flight.values() if d is not None]
    return POLL_S if not deadlines else max(0.0, min(POLL_S, min(deadlines) - time.monotonic()))


def _result(ray, ref) -> dict:
    try:
        return ray.get(ref)
    except Exception as e:
        if isinstance(e, tuple(getattr(ray.exceptions, name, ()) for name in DIED)):
            return rows.failure(f"the compiler process died (Ray: {type(e).__name__}) compiling this config")
        return rows.failure(rows.one_line(e))


@contextlib.contextmanager
def _session(ray, address: str, workers: int):
    """Connected to Ray for the sweep: yields (tasks at once, the tasks' runtime_env)."""
    from ..lifecycle import PROJECT_ROOT
    env_vars = {"PYTHONPATH": os.pathsep.join(filter(None, [PROJECT_ROOT, os.environ.get("PYTHONPATH")]))}
    with _quiet_ray_notices(ray):
        if ray.is_initialized():     # this process is connected already (a notebook's ray.init): used as found
            yield _width(ray, workers), {"env_vars": env_vars}
            return
        if address == "local":
            # Workers are this machine's processes: they find playground (and the user's file) as we
            # do, and compile into this process's Triton cache, so a rerun is served from it.
            if "TRITON_CACHE_DIR" in os.environ:
                env_vars["TRITON_CACHE_DIR"] = os.environ["TRITON_CACHE_DIR"]
            # The job's environment, not each task's: the workers Ray starts with the instance serve it.
            options = dict(num_cpus=workers, _node_ip_address="127.0.0.1", runtime_env={"env_vars": env_vars})
        else:
            # Another machine's workers lack playground: Ray ships it (once per content), kernels included.
            options = dict(address=address, runtime_env={"py_modules": [str(_playground_to_ship())]})
        with _started(ray, address, options):
            yield _width(ray, workers), None


def _playground_to_ship() -> Path:
    """The playground package as another machine imports it: installed, it holds its kernels/; from a checkout
    (an editable install maps playground.kernels to the repository's kernels/), a copy of the two put together."""
    import shutil
    import tempfile

    import playground
    from playground.core import registry
    package = Path(playground.__path__[0])
    if (package / "kernels").resolve() == registry.KERNELS_DIR.resolve():
        return package
    from playground import versions
    # one copy per version of the code (the fingerprint covers playground/ only, so the kernels' own content too)
    import hashlib
    kernels = hashlib.sha256(b"".join(f.read_bytes() for f in sorted(registry.KERNELS_DIR.glob("*.py"))))
    key = versions.code_fingerprint()[:12] + kernels.hexdigest()[:12]
    staged = Path(tempfile.gettempdir()) / f"playground-ray-{key}" / "playground"
    if not staged.is_dir():
        ignore = shutil.ignore_patterns("__pycache__")
        building = staged.with_name(f"building-{os.getpid()}")
        shutil.copytree(package, building, ignore=ignore)
        shutil.copytree(registry.KERNELS_DIR, building / "kernels", ignore=ignore)
        os.replace(building, staged)
    return staged


@contextlib.contextmanager
def _started(ray, address: str, options: dict):
    """ray.init, then ray.shutdown: a local instance stopped with every process of it, a cluster left.

    While ray.init runs, a SIGTERM must still stop the sweep cleanly (exit 143, nothing left): Ray's
    core worker would answer it with its C++ failure handler, which aborts this process, so that handler
    is left out; and Ray's own Python handler (SystemExit(15)) is read as the Interrupted it stands for.
    """
    import signal
    import tempfile

    from ..lifecycle import Interrupted
    scratch = tempfile.mkdtemp(prefix="playground-ray-") if address == "local" else None
    if scratch:
        options = dict(options, _temp_dir=scratch)      # its logs and sockets, gone afterwards
    sigterm = signal.getsignal(signal.SIGTERM)
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    no_handler = getattr(constants, "RAY_DISABLE_FAILURE_SIGNAL_HANDLER", None)
    if no_handler is not None:
        constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = True
    auth_mode = os.environ.get("RAY_AUTH_MODE")
    try:
        named = os.environ.get("RAY_ADDRESS") if address == "auto" else address   # what `auto` would join
        if named and named not in ("local", "auto"):
            _probe(named, address)
        if address not in ("local", "auto"):
            _token_auth(ray)
        ray.init(**options, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    except UserError:
        raise
    except BaseException as e:
        ray.shutdown()
        if scratch:
            _remove(scratch)
        if isinstance(e, SystemExit) and e.code == signal.SIGTERM:
            raise Interrupted(signal.SIGTERM) from None
        if not isinstance(e, Exception):
            raise
        if address == "auto" and "Could not find any running Ray instance" in str(e):
            raise UserError("ray auto: no running Ray cluster on this machine; start one with `ray start "
                            "--head`, or use `ray` local", param="ray") from None
        raise UserError(f"ray {address}: Ray did not start: {rows.one_line(e)}", param="ray") from None
    finally:
        _restore_auth_mode(auth_mode)      # read while connecting only
        if no_handler is not None:
            constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = no_handler
        if sigterm is not None:      # ray.init takes SIGTERM; lifecycle's handler keeps it (stop everything)
            signal.signal(signal.SIGTERM, sigterm)
    try:
        yield
    finally:
        ray.shutdown()
        if scratch:
            _remove(scratch)


def _restore_auth_mode(mode: str | None) -> None:
    """_token_auth leaves RAY_AUTH_MODE set for the process (Ray's own step does): put back what was there
    once connected (the connection keeps the token it was made with)."""
    if mode is None:
        os.environ.pop("RAY_AUTH_MODE", None)
    else:
        os.environ["RAY_AUTH_MODE"] = mode


def _remove(scratch: str) -> None:
    """Delete a local instance's folder once nothing of it runs. ray.shutdown can return while Ray's
    daemons still write there, above all when a signal cut ray.init short; lifecycle would kill them only
    on the way out, after the folder is gone, and they would write it anew. So they are stopped first:
    given a moment to leave as ray.shutdown asked, then killed, the whole tree at once (an agent whose
    raylet dies first is reparented and its title hides the folder)."""
    import shutil

    import psutil
    _, alive = psutil.wait_procs(_ray_processes(scratch), timeout=1)
    for _ in range(3):                     # again for any a dying raylet started meanwhile
        if not alive:
            break
        for p in alive:
            with contextlib.suppress(psutil.Error):
                p.kill()
        psutil.wait_procs(alive, timeout=2)
        alive = _ray_processes(scratch)
    shutil.rmtree(scratch, ignore_errors=True)


RAY_PROCESS_NAMES = ("raylet", "gcs_server", "ray::")     # Ray's daemons, and its workers' titles


def _ray_processes(scratch: str) -> list:
    """This local instance's processes: Ray's among our descendants, and any naming its folder."""
    import psutil
    found = {}
    for p in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if p.name().startswith(RAY_PROCESS_NAMES):
                found[p.pid] = p
    for p in psutil.process_iter(["cmdline"]):
        if any(scratch in arg for arg in p.info["cmdline"] or ()):
            found[p.pid] = p
    return list(found.values())


@contextlib.contextmanager
def _signal_named():
    """Ray's waits turn the exception a signal handler raises into a bare KeyboardInterrupt; the signal
    is noted on its way to the handler, and raised again as lifecycle's Interrupted (exit 143 after SIGTERM)."""
    import signal
    import threading

    from ..lifecycle import Interrupted
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def note(signum, frame):
        noted.append(signum)
        previous[signum](signum, frame)

    wrapped = [s for s, handler in previous.items() if callable(handler)]
    for s in wrapped:
        signal.signal(s, note)
    try:
        yield
    except KeyboardInterrupt as e:
        if noted and not isinstance(e, Interrupted):
            raise Interrupted(noted[-1]) from None
        raise
    finally:
        for s in wrapped:
            if signal.getsignal(s) is note:      # lifecycle's first handler replaces it with its second
                signal.signal(s, previous[s])


def _width(ray, workers: int) -> int:
    """Tasks in flight at once: `workers`, or fewer when the cluster has fewer CPUs."""
    cpus = int(ray.cluster_resources().get("CPU", 0))
    return max(1, min(workers, cpus)) if cpus else workers


@contextlib.contextmanager
def _quiet_ray_notices(ray):
    """Ray's notices that are not the sweep's: each row already says what happened to its config.

    The token-auth notice a new local instance logs at every start, and the raylet's messages the
    driver prints on stdout (a worker that died: its config's row says so) go; Ray's warnings stay.
    """
    import logging

    auth = logging.getLogger("ray._private.authentication.authentication_token_setup")
    level = auth.level
    auth.setLevel(logging.ERROR)
    ray_worker = getattr(getattr(ray, "_private", None), "worker", None)    # internals: if moved, not quieted
    print_to_stdstream = getattr(ray_worker, "print_to_stdstream", None)

    def print_unless_raylet(data, *args, **kwargs):
        if data.get("pid") != "raylet":     # "a worker died": printed on stdout, it would break --json
            print_to_stdstream(data, *args, **kwargs)

    if print_to_stdstream is not None:
        ray_worker.print_to_stdstream = print_unless_raylet
    try:
        yield
    finally:
        auth.setLevel(level)
        if print_to_stdstream is not None:
            ray_worker.print_to_stdstream = print_to_stdstream
