"""The table: points, tie-breaks, Elo against the field, the crosstable, its CSV, and
which parameter won."""

from __future__ import annotations

import csv
import io

import pytest

from engine.arena.rules import ArenaError, ArenaRules, Bot
from engine.arena.standings import Result, crosstable, crosstable_csv, standings, what_won
from engine.search.registry import ALGORITHMS


def uct(bot_id: str, name: str, **params: object) -> Bot:
    return Bot(bot_id, name, "uct", ALGORITHMS["uct"].validate(params, "chess"))


ADA, BOB, CY, DI = (
    uct("a", "Ada", c=0.5),
    uct("b", "Bob", c=1.0),
    uct("c", "Cy", c=1.5),
    uct("d", "Di", c=2.0),
)
BOTS = [ADA, BOB, CY, DI]


def meeting(x: str, y: str, first: str, second: str) -> list[Result]:
    """Two games, colours swapped: ``first`` with x White, ``second`` with y White."""
    return [Result(x, y, first), Result(y, x, second)]


# b beats everyone 2-0; a and c draw everything else except: a beats d 2-0, c beats d 1.5.
RESULTS = [
    *meeting("b", "a", "1-0", "0-1"),
    *meeting("b", "c", "1-0", "0-1"),
    *meeting("b", "d", "1-0", "0-1"),
    *meeting("a", "c", "1/2-1/2", "1/2-1/2"),
    *meeting("a", "d", "1-0", "0-1"),
    *meeting("c", "d", "1-0", "1/2-1/2"),
]


def test_points_wins_draws_losses_and_score() -> None:
    table = {s.bot_id: s for s in standings(BOTS, RESULTS)}
    assert (table["b"].points, table["b"].wins, table["b"].games, table["b"].score) == (6, 6, 6, 1)
    assert (table["a"].points, table["a"].wins, table["a"].draws, table["a"].losses) == (
        3, 2, 2, 2,
    )  # fmt: skip
    assert table["d"].points == 0.5 and table["d"].score == round(0.5 / 6, 4)
    assert [s.rank for s in standings(BOTS, RESULTS)] == [1, 2, 3, 4]


def test_the_name_decides_when_points_sonneborn_berger_and_head_to_head_are_level() -> None:
    results = [*RESULTS[:-2], *meeting("c", "d", "1-0", "0-1")]  # c now beats d 2-0 too
    table = standings(BOTS, results)
    a, c = (next(s for s in table if s.bot_id == x) for x in "ac")
    assert a.points == c.points == 3 and a.sonneborn_berger == c.sonneborn_berger
    assert [s.bot_id for s in table] == ["b", "a", "c", "d"]  # Ada before Cy
    renamed = [ADA, BOB, Bot("c", "Aaron", "uct", CY.params), DI]
    assert [s.bot_id for s in standings(renamed, results)][1:3] == ["c", "a"]


def test_sonneborn_berger_prefers_points_taken_from_strong_bots() -> None:
    # x and y both score 1 point from 2 games: x beat the winner w, y beat the loser z.
    bots = [uct("x", "Zed"), uct("y", "Amy"), uct("w", "W"), uct("z", "Z")]  # names favour y
    results = [
        Result("x", "w", "1-0"), Result("w", "x", "1-0"),
        Result("y", "z", "1-0"), Result("z", "y", "1-0"),
        Result("w", "z", "1-0"), Result("z", "w", "0-1"),
    ]  # fmt: skip
    table = standings(bots, results)
    order = [s.bot_id for s in table]
    assert order.index("x") < order.index("y")
    assert next(s for s in table if s.bot_id == "x").sonneborn_berger > 0


def test_head_to_head_breaks_a_tie_that_sonneborn_berger_leaves() -> None:
    bots = [uct(x, x.upper()) for x in "pqrs"]
    results = [
        Result("p", "q", "0-1"), Result("p", "r", "1-0"), Result("p", "s", "1/2-1/2"),
        Result("q", "r", "1/2-1/2"), Result("q", "s", "0-1"), Result("r", "s", "0-1"),
    ]  # fmt: skip
    table = standings(bots, results)
    p, q = (next(s for s in table if s.bot_id == x) for x in "pq")
    assert (p.points, p.sonneborn_berger) == (q.points, q.sonneborn_berger) == (1.5, 1.75)
    assert [s.bot_id for s in table] == ["s", "q", "p", "r"]  # q beat p; the name says p


def test_elo_against_the_field_waits_for_eight_games() -> None:
    short = {s.bot_id: s for s in standings(BOTS, RESULTS)}
    assert short["a"].elo is None and short["a"].elo_ci95 is None
    long = RESULTS + RESULTS
    table = {s.bot_id: s for s in standings(BOTS, long)}
    a = table["a"]
    assert a.games == 12 and a.elo == 0.0  # 6 out of 12
    assert a.elo_ci95 is not None and a.elo_ci95[0] < 0 < a.elo_ci95[1]
    assert table["b"].elo is None  # 100 %: unbounded


def test_a_bye_is_a_point_and_a_game_but_no_win_and_no_crosstable_cell() -> None:
    results = [Result("a", "b", "1-0"), Result("c", None, "1-0")]
    table = {s.bot_id: s for s in standings(BOTS[:3], results)}
    assert (table["c"].points, table["c"].games, table["c"].wins, table["c"].byes) == (1, 1, 0, 1)
    cells = crosstable(BOTS[:3], results)
    assert all(cell is None or cell[1] <= 1 for row in cells for cell in row)


def test_the_crosstable_is_in_standings_order_with_points_and_games() -> None:
    cells = crosstable(BOTS, RESULTS)  # order b, a, c, d
    assert [cells[i][i] for i in range(4)] == [None] * 4
    assert cells[0][1] == (2.0, 2) and cells[1][0] == (0.0, 2)
    assert cells[1][2] == (1.0, 2) and cells[2][3] == (1.5, 2) and cells[3][2] == (0.5, 2)
    for i in range(4):
        for j in range(4):
            if i != j:
                row, col = cells[i][j], cells[j][i]
                assert row is not None and col is not None
                assert row[0] + col[0] == row[1] == col[1]


def test_the_csv_has_the_header_the_ranks_and_the_cells() -> None:
    rows = list(csv.reader(io.StringIO(crosstable_csv(BOTS, RESULTS))))
    assert rows[0] == ["rank", "bot", "algorithm", "params", "Bob", "Ada", "Cy", "Di",
                       "points", "games", "score"]  # fmt: skip
    assert rows[1][:2] == ["1", "Bob"] and rows[1][4:] == ["", "2", "2", "2", "6", "6", "1.000"]
    assert rows[4][:2] == ["4", "Di"] and rows[4][4:8] == ["0", "0", "0.5", ""]
    assert "c=1.5" in rows[3][3] and rows[3][2] == "uct"


def test_an_unplayed_pair_is_an_empty_cell() -> None:
    rows = list(csv.reader(io.StringIO(crosstable_csv(BOTS, RESULTS[:2]))))
    assert rows[1][4:8].count("") == 3  # Bob met only Ada


def test_what_won_is_the_parameter_the_class_varied() -> None:
    rules = ArenaRules("chess", iterations=50, algorithms=("uct",), free={"uct": ("c", "policy")})
    won = what_won(BOTS, standings(BOTS, RESULTS), rules)
    assert won.parameter == "c" and won.kind == "number"
    assert won.points == [("b", 1.0, 1.0), ("a", 0.5, 0.5), ("c", 1.5, 0.4167), ("d", 2.0, 0.0833)]


def test_what_won_is_the_algorithm_when_bots_differ_by_algorithm() -> None:
    rules = ArenaRules("chess", iterations=50, algorithms=("uct", "bfms", "mcts"), free={})
    bots = [
        Bot("a", "A", "uct", ALGORITHMS["uct"].validate(None, "chess")),
        Bot("b", "B", "bfms", ALGORITHMS["bfms"].validate(None, "chess")),
        Bot("c", "C", "mcts", ALGORITHMS["mcts"].validate(None, "chess")),
    ]
    results = [Result("a", "b", "0-1"), Result("c", "a", "1-0")]
    won = what_won(bots, standings(bots, results), rules)
    assert won.parameter == "algorithm" and won.kind == "algorithm"
    assert {(bot, value) for bot, value, _ in won.points} == {
        ("a", "uct"),
        ("b", "bfms"),
        ("c", "mcts"),
    }


def test_a_choice_parameter_and_the_case_where_nothing_varied() -> None:
    rules = ArenaRules("chess", iterations=50, algorithms=("uct",), free={"uct": ("c", "final")})
    bots = [uct("a", "A", final="q"), uct("b", "B")]
    results = [Result("a", "b", "1-0")]
    won = what_won(bots, standings(bots, results), rules)
    assert (won.parameter, won.kind) == ("final", "choice")
    same = [uct("a", "A"), uct("b", "B")]
    nothing = what_won(same, standings(same, results), rules)
    assert nothing.parameter is None and nothing.kind == "none"
    assert [value for _, value, _ in nothing.points] == [None, None]


def test_a_bad_result_is_refused() -> None:
    with pytest.raises(ArenaError, match="result must be one of"):
        Result("a", "b", "2-0")
