"""No import cycle inside ``app/``, ``engine/`` or ``canopy/``: modules import only downward,
and so do packages (``engine.search`` searches, ``engine.explain`` explains it: the one reads
the other, never the other way round).

Every import counts: at the top of a module, inside a function (a lazy import
still makes the two modules depend on each other), and under
``TYPE_CHECKING`` (a type-only import is still a design cycle: one module
knows the other's type while the other knows it back). Imports are read with
``ast``, not run, so the test sees what the code says and costs nothing.

``from package import name`` is an edge to ``package.name`` when that is a
module, else to ``package``; an import of a package's submodule is an edge to
that submodule only (not to the parents whose ``__init__`` also runs). A package's
modules import another package when any of them imports any of its modules; a module
directly under the top package (``engine.bench``) counts as a package of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: Cycles known when this test was written, each to be removed by the work named; the test
#: fails on any other cycle, and on one of these growing. Delete an entry once it is gone.
KNOWN: dict[str, list[frozenset[str]]] = {
    "app": [],
    "engine": [],
    "canopy": [],
}


def _modules(package: str, root: Path) -> dict[str, Path]:
    out = {}
    for path in (root / package).rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(module: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The modules of ``known`` that ``module`` imports, anywhere in its source."""

    def owner(name: str) -> str | None:  # the longest prefix of ``name`` that is a module
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (target := owner(alias.name)) is not None:
                    yield target
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if full in known else owner(base)
                if target is not None:
                    yield target


def cycles(package: str, root: Path = REPO) -> list[frozenset[str]]:
    """The strongly connected groups of two or more modules in ``package``'s import graph."""
    known = _modules(package, root)
    return _strongly_connected({m: set(_imports(m, p, known)) - {m} for m, p in known.items()})


def _subpackage(module: str) -> str:
    """``engine.search`` for ``engine.search.parts.pv``; ``engine`` for ``engine`` itself."""
    return ".".join(module.split(".")[:2])


def package_cycles(package: str, root: Path = REPO) -> list[frozenset[str]]:
    """The strongly connected groups of two or more of ``package``'s subpackages."""
    known = _modules(package, root)
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        unit = _subpackage(module)
        graph.setdefault(unit, set()).update(_subpackage(t) for t in _imports(module, path, known))
    return _strongly_connected({unit: targets - {unit} for unit, targets in graph.items()})


def _strongly_connected(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(frozenset(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("package", ["app", "engine", "canopy"])
def test_no_module_imports_one_that_imports_it_back(package: str) -> None:
    new = [sorted(c) for c in cycles(package) if c not in KNOWN[package]]
    assert new == [], f"import cycles in {package}/: {new}"


@pytest.mark.parametrize("package", ["app", "engine"])
def test_no_package_imports_one_that_imports_it_back(package: str) -> None:
    found = [sorted(c) for c in package_cycles(package)]
    assert found == [], f"package cycles in {package}/: {found}"


def test_the_search_never_imports_its_explanation() -> None:
    known = _modules("engine", REPO)
    wrong = sorted(
        (module, target)
        for module, path in known.items()
        if _subpackage(module) == "engine.search"
        for target in _imports(module, path, known)
        if _subpackage(target) == "engine.explain"
    )
    assert wrong == [], f"engine.search imports engine.explain: {wrong}"


def test_the_cycle_finder_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    """The checker itself: a cycle made only of a lazy and a TYPE_CHECKING import is found."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg import b\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\n"
    )
    (pkg / "c.py").write_text("from . import a\n")  # relative, and not part of the cycle
    assert cycles("pkg", tmp_path) == [frozenset({"pkg.a", "pkg.b"})]


def test_the_package_cycle_finder_sees_a_cycle_no_module_cycle_makes(tmp_path: Path) -> None:
    """Two packages that import each other through different modules: no module imports
    one that imports it back, yet the packages depend on each other."""
    for folder in ("pkg", "pkg/a", "pkg/b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "pkg/a/x.py").write_text("from pkg.b import y\n")
    (tmp_path / "pkg/b/y.py").write_text("")
    (tmp_path / "pkg/b/z.py").write_text("import pkg.a.w\n")
    (tmp_path / "pkg/a/w.py").write_text("")
    (tmp_path / "pkg/c.py").write_text("from pkg.a import x\n")  # a package of its own
    assert cycles("pkg", tmp_path) == []
    assert package_cycles("pkg", tmp_path) == [frozenset({"pkg.a", "pkg.b"})]
