"""The match's result as text lines and as the ``--json`` object (the CLI prints them)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine.match.runner import MatchConfig, MatchState


def _elo_text(value: float | None, unbounded: str) -> str:
    return unbounded if value is None else f"{value:+.1f}"


def progress_line(state: MatchState, width: int = 24) -> str:
    """``[######....] 34/200  +12 =10 -12  50.0%  Elo +0 [-85, +85]  9.1 s/game``."""
    done = state.score.games
    filled = int(width * done / max(1, state.planned))
    bar = "#" * filled + "." * (width - filled)
    s = state.score
    low, high = s.elo_ci95()
    elo = "n/a" if s.elo is None else f"{s.elo:+.0f}"
    per_game = state.seconds / done if done else 0.0
    text = (
        f"[{bar}] {done}/{state.planned}  +{s.wins} ={s.draws} -{s.losses}  "
        f"{100 * s.score:.1f}%  Elo {elo} [{_elo_text(low, '-inf')}, {_elo_text(high, '+inf')}]"
        f"  {per_game:.1f} s/game"
    )
    if state.sprt_llr is not None:
        text += f"  LLR {state.sprt_llr:+.2f}"
    return text


def summary(config: MatchConfig, state: MatchState) -> dict[str, Any]:
    """Everything about the match, engine 0 (the first ``--engine``) first."""
    s = state.score
    low, high = s.elo_ci95()
    first_white = [r for r in state.records if r.white == 0]
    colour = {
        "white": sum(r.points(0) for r in first_white),
        "white_games": len(first_white),
        "black": sum(r.points(0) for r in state.records if r.white == 1),
        "black_games": len(state.records) - len(first_white),
    }
    reasons = Counter(r.reason or r.termination for r in state.records)
    out: dict[str, Any] = {
        "game": config.game,
        "engines": [
            {"spec": e.text, "name": e.name, **state.stats[i].as_dict()}
            for i, e in enumerate(config.engines)
        ],
        "time_control": config.tc.describe(),
        "games": s.games,
        "wins": s.wins,
        "draws": s.draws,
        "losses": s.losses,
        "score": s.score,
        "elo": s.elo,
        "elo_ci95": [low, high],
        "elo_error": s.elo_error(),
        "los": s.los,
        "draw_ratio": s.draw_ratio,
        "colours": colour,
        "terminations": dict(reasons.most_common()),
        "mean_plies": (
            sum(len(r.moves) for r in state.records) / len(state.records) if state.records else 0
        ),
        "openings": len(config.openings),
        "pgn": str(config.pgn) if config.pgn else None,
        "stop_reason": state.stop_reason,
        "seconds": state.seconds,
        "seed": config.seed,
    }
    if config.sprt is not None:
        lower, upper = config.sprt.bounds
        out["sprt"] = {
            "elo0": config.sprt.elo0,
            "elo1": config.sprt.elo1,
            "alpha": config.sprt.alpha,
            "beta": config.sprt.beta,
            "llr": config.sprt.llr(s),
            "bounds": [lower, upper],
            "decision": state.sprt_decision,
        }
    return out


def summary_lines(data: dict[str, Any]) -> list[str]:
    a, b = data["engines"]
    low, high = data["elo_ci95"]
    elo = "n/a (one side scored everything)" if data["elo"] is None else f"{data['elo']:+.1f}"
    lines = [
        f"{data['game']} match, {data['time_control']}, {data['games']} games "
        f"({data['openings']} openings, stopped by: {data['stop_reason']})",
        f"Score of {a['name']} vs {b['name']}: {data['wins']} - {data['losses']} - "
        f"{data['draws']}  [{data['score']:.3f}]  {data['games']}",
        f"Elo difference: {elo}, 95% interval [{_elo_text(low, '-inf')}, "
        f"{_elo_text(high, '+inf')}], LOS {100 * data['los']:.1f}%, "
        f"draws {100 * data['draw_ratio']:.1f}%",
        f"{a['name']} as White {data['colours']['white']:g}/{data['colours']['white_games']}, "
        f"as Black {data['colours']['black']:g}/{data['colours']['black_games']}; "
        f"mean length {data['mean_plies']:.0f} plies",
    ]
    for e in (a, b):
        lines.append(
            f"  {e['name']}: {e['moves']} moves, mean {e['mean_ms']:.0f} ms/move, "
            f"{e['late_moves']} late, worst overrun {e['worst_overrun_ms']:.0f} ms"
        )
    for reason, count in data["terminations"].items():
        lines.append(f"  {count:>4} × {reason}")
    if "sprt" in data:
        sp = data["sprt"]
        lines.append(
            f"SPRT elo0={sp['elo0']:g} elo1={sp['elo1']:g} alpha={sp['alpha']:g} "
            f"beta={sp['beta']:g}: LLR {sp['llr']:+.2f} in [{sp['bounds'][0]:.2f}, "
            f"{sp['bounds'][1]:.2f}] → {sp['decision'] or 'no decision'}"
        )
    return lines
