"""No code outside an algorithm's own module and the registry compares an algorithm's name.

What the views need to know about an algorithm comes from its ``Algorithm`` class and
its explainer (hooks and the capabilities ``/api/algorithms`` sends); a check like
``name == "bfms"`` or ``algorithm === "alphabeta"`` elsewhere is a place a new
algorithm would have to be added by hand. This test greps the Python and the
front end for such comparisons.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.search.registry import ALGORITHMS

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = (ROOT / "engine" / "search" / "algorithms", ROOT / "engine" / "search" / "registry.py")
SOURCES = [
    *sorted((ROOT / "engine").rglob("*.py")),
    *sorted((ROOT / "app").rglob("*.py")),
    *sorted((ROOT / "canopy").rglob("*.py")),
    *sorted((ROOT / "app" / "static" / "js").glob("*.js")),
]
NAMES = sorted(ALGORITHMS, key=len, reverse=True)
_NAME = "|".join(re.escape(n) for n in NAMES)
_LIT = rf"""["'`](?:{_NAME})["'`]"""
_COMPARE = r"(?:===|!==|==|!=)"

_ANY_LIT = r"""["'`][^"'`]*["'`]"""

PATTERNS = {
    # "bfms" == x, x !== 'alphabeta', name == "uct"
    "comparison with a name": re.compile(rf"{_COMPARE}\s*{_LIT}|{_LIT}\s*{_COMPARE}"),
    # ["uct", "bfms"].includes(x), case "alphabeta":
    "JS includes/switch on a name": re.compile(
        rf"\[[^\]]*{_LIT}[^\]]*\]\s*\.includes\(|\bcase\s+{_LIT}\s*:"
    ),
    # stats.algorithm === "anything" or === SOME_CONSTANT: a name, registered or not yet
    "an algorithm field compared with a literal or constant": re.compile(
        rf"\.algorithm\s*{_COMPARE}\s*(?:{_ANY_LIT}|[A-Z][A-Z0-9_]+\b)"
        rf"|(?:{_ANY_LIT}|\b[A-Z][A-Z0-9_]+)\s*{_COMPARE}\s*[\w.]*\.algorithm\b"
    ),
}
# x in ("uct", "uct-minimax"), x not in {"bfms"}, Q = frozenset({"uct", "uct-minimax"}):
# a literal collection whose strings are all registered names
_COLLECTION = re.compile(
    r"(?:\bin|frozenset\(|\bset\(|(?<![=!<>])=(?!=))\s*[\(\[\{]([^\)\]\}]*)[\)\]\}]"
)
_STRING = re.compile(r"""["'`]([^"'`]*)["'`]""")
_FOR_IN = re.compile(r"\bfor\b[^=]*\bin\b")


def _literal_name_sets(code: str) -> bool:
    """True if the line tests membership in (or builds) a literal set of names only."""
    for match in _COLLECTION.finditer(code):
        if match.group(0).lstrip().startswith("in") and _FOR_IN.search(code[: match.end()]):
            continue  # iterating, not testing membership
        body = match.group(1)
        if ":" in _STRING.sub("", body):
            continue  # a dict keyed by name (a lookup table), not a set to test against
        strings = _STRING.findall(body)
        if strings and all(x in ALGORITHMS for x in strings):
            return True
    return False


def _hits(line: str, js: bool) -> list[str]:
    code = _code(line, js)
    hits = [what for what, pattern in PATTERNS.items() if pattern.search(code)]
    if _literal_name_sets(code):
        hits.append("membership in a literal collection of names")
    return hits


def _allowed(path: Path) -> bool:
    return any(path == a or a in path.parents for a in ALLOWED)


def _code(line: str, js: bool) -> str:
    """The line without its comment (good enough for a grep: no ``#`` or ``//`` in names)."""
    marker = "//" if js else "#"
    return line.split(marker, 1)[0] if marker in line else line


def find_name_comparisons(sources: list[Path] = SOURCES) -> list[str]:
    found = []
    for path in sources:
        if _allowed(path) or path.name == "test_algorithm_names.py":
            continue
        js = path.suffix == ".js"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for what in _hits(line, js):
                found.append(f"{path.relative_to(ROOT)}:{number}: {what}: {line.strip()}")
    return found


def test_no_algorithm_name_is_compared_outside_its_module_and_the_registry() -> None:
    found = find_name_comparisons()
    assert not found, "compare capabilities, not names:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        'if algorithm.name == "bfms":',
        "if name != 'alphabeta':",
        'if info.algorithm not in ("uct", "uct-minimax"):',
        'Q_ALGORITHMS = frozenset({"uct", "uct-minimax"})',
        'const x = me.algorithm === "alphabeta" ? 1 : 2;',
        'if (stats.algorithm !== "alphabeta") return;',
        'if (["uct", "bfms"].includes(a)) go();',
        '    case "alphabeta":',
        "if (stats.algorithm === ALPHABETA) return;",
        '"bfms" === level.rule',
    ],
)
def test_the_grep_catches_each_form_of_name_comparison(line: str) -> None:
    hits = _hits(line, js=False)
    assert hits, f"{line!r} slipped through"


@pytest.mark.parametrize(
    "line",
    [
        'ALGORITHMS = {"uct": UCT}',
        "if caps.tree and algorithm.name == other.name:",
        'params = {"algorithm": "uct"}',
        "if (caps(step.algorithm).stepping === 'depth') return;",
        "if (a.algorithm === b.algorithm) same();",
        '# the old code compared name == "bfms" here',
    ],
)
def test_the_grep_leaves_capability_checks_and_plain_uses_alone(line: str) -> None:
    hits = _hits(line, js=False)
    assert not hits, f"{line!r} flagged as {hits}"
