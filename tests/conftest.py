"""Shared test fixtures: where ../shared lives (skipping cleanly when it does not), a data
directory of the run's own so no test touches a user's games, the ``timing`` marker, and
how a parallel run (``make test``: pytest-xdist) shares the work among its workers."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CANOPY_SHARED", REPO.parent / "shared"))


def shared_file(relative: str) -> Path:
    """Path of a file under ../shared, or skip the test when it is not there."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"{path} not found (tests read shared data from ../shared)")
    return path


def read_epd(relative: str) -> list[tuple[str, dict[int, int]]]:
    """Perft EPD lines: ``FEN ;D1 n ;D2 n ...`` → [(fen, {depth: nodes})]."""
    rows = []
    for line in shared_file(relative).read_text().splitlines():
        if not line.strip():
            continue
        fen, *fields = line.split(";")
        counts = {int(f.split()[0][1:]): int(f.split()[1]) for f in fields if f.strip()}
        rows.append((fen.strip(), counts))
    return rows


# ---------------------------------------------------------------- a user's data stays theirs

#: The data directory a user's ``make run`` fills (``CANOPY_DATA_DIR``'s default).
USER_DATA = REPO / "data"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--timing",
        action="store_true",
        help="also run the strict wall-clock goals (marker 'timing'; see tests/timing.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Point every setting that names a store at a directory of this run's own.

    Set before any test module is imported, so code that builds ``Settings()``
    without arguments (the benchmarks, the CLI, a server in a subprocess, which
    inherits the environment) stores its games there, never in ``./data``
    or a user's ``CANOPY_DATABASE_URL``. Each test that needs a store of its
    own still passes one (``tmp_path``).
    """
    root = Path(tempfile.mkdtemp(prefix="canopy-tests-"))
    config.stash[_RUN_DATA] = root
    config.stash[_USER_DATA_BEFORE] = _listing(USER_DATA)
    os.environ["CANOPY_DATA_DIR"] = str(root / "data")
    os.environ.pop("CANOPY_DATABASE_URL", None)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Strict timing goals run only on request (``--timing``, as ``make test-all`` does);
    in a parallel run each module is one unit of work, the longest first."""
    if config.getoption("dist", "no") == "loadgroup":
        _schedule(items)
    if config.getoption("--timing"):
        return
    keep, skip = [], []
    for item in items:
        (skip if item.get_closest_marker("timing") else keep).append(item)
    if skip:
        config.hook.pytest_deselected(items=skip)
        items[:] = keep


# ---------------------------------------------------------------- a parallel run (make test)

#: A test module whose module-scoped fixtures are independent runs: in a parallel run its
#: tests are grouped by the fixture they use, so each run is made once and the runs on
#: both workers at once. (Each self-play run compiles the kernels of its player processes
#: for its own weights: engine/__init__.py.)
BY_FIXTURE = ("tests/engine/learn/test_train_reproducible.py",)
#: A module whose tests join another group, after it: the cluster test's run is the first
#: generation of ``two_runs`` (the same seed), whose players' kernels it then finds compiled.
JOINS = {"tests/engine/learn/test_train_cluster.py": f"{BY_FIXTURE[0]}::two_runs"}
#: The groups that take longest (measured with --durations), longest first: started first,
#: so that no worker is left alone with one of them at the end of the run.
LONGEST = (
    f"{BY_FIXTURE[0]}::static_runs",
    f"{BY_FIXTURE[0]}::two_runs",
    f"{BY_FIXTURE[0]}::chess_runs",
    "tests/browser/test_inside.py",
    "tests/engine/tune/test_texel_tables.py",
    "tests/engine/match/test_probe.py",
    "tests/browser/test_play.py",
    "tests/browser/test_mcts_views.py",
    "tests/reliability/test_restart.py",
    "tests/reliability/test_load.py",
)


def _group(item: pytest.Item) -> str:
    """The unit of work ``item`` belongs to: its module, but see ``BY_FIXTURE`` and ``JOINS``."""
    module = item.nodeid.split("::")[0]
    if module in JOINS:
        return JOINS[module]
    if module in BY_FIXTURE:
        for name in item.fixturenames:
            defs = item._fixtureinfo.name2fixturedefs.get(name, ())
            if defs and defs[-1].scope == "module" and defs[-1].baseid == module:
                return f"{module}::{name}"
    return module


def _schedule(items: list[pytest.Item]) -> None:
    """Mark each test with its group (``--dist loadgroup`` sends a group to one worker, so
    a module's fixtures are made once) and put the ``LONGEST`` groups first."""
    rank = {group: k for k, group in enumerate(LONGEST)}
    groups: dict[str, str] = {}
    for item in items:
        groups[item.nodeid] = _group(item)
        item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))

    def order(item: pytest.Item) -> tuple[int, bool]:
        joined = item.nodeid.split("::")[0] in JOINS  # after the group's own tests
        return rank.get(groups[item.nodeid], len(rank)), joined

    items.sort(key=order)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Before the workers of a parallel run start: every kernel compiled, on two cores."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    from engine.warm import warm

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("compiling or loading the numba kernels before the workers start")
    seconds = warm(jobs=2)
    if reporter is not None:
        reporter.write_line(f"numba kernels ready in {seconds:.0f} s")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if ``./data`` changed while it ran (and nothing else had it open)."""
    config = session.config
    before = config.stash.get(_USER_DATA_BEFORE, None)
    if before is None:
        return
    shutil.rmtree(config.stash[_RUN_DATA], ignore_errors=True)
    after = _listing(USER_DATA)
    if after == before or _held_by_another_process(USER_DATA):
        return
    changed = sorted(set(before.items()) ^ set(after.items()))
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(f"the test run changed {USER_DATA}: {changed[:5]}", red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


_RUN_DATA = pytest.StashKey[Path]()
_USER_DATA_BEFORE = pytest.StashKey[dict[str, tuple[int, int]]]()


def _listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time (ns)."""
    if not root.is_dir():
        return {}
    out = {}
    for path in root.rglob("*"):
        with contextlib.suppress(OSError):  # removed while we looked
            if path.is_file():
                st = path.stat()
                out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


def _held_by_another_process(root: Path) -> bool:
    """Whether a process other than this one has a file under ``root`` open (Linux).

    A server the user runs beside the tests (``make run``) writes to ``./data``
    as it should; that is not the suite's doing. Elsewhere (no /proc) assume so.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    prefix = str(root.resolve()) + os.sep
    for fd_dir in proc.glob("[0-9]*/fd"):
        if fd_dir.parent.name == str(os.getpid()):
            continue
        with contextlib.suppress(OSError):
            for fd in fd_dir.iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd).startswith(prefix):
                        return True
    return False
