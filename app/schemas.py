"""Pydantic models for every HTTP body and websocket message (docs/protocol.md).

Client-to-server frames form one discriminated union on ``type``; every model
forbids unknown fields and is strict about types, so a typo or a string where
a number belongs is refused with a message naming the field instead of being
guessed at. Server-to-client frames are modelled too: they document the
protocol and the tests validate every frame the server sends against them
(the server builds those frames as plain dicts, which is cheaper at 10 Hz).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from app.streaming import MAX_TREE_NODES, MIN_TREE_NODES

Human = Literal["white", "black", "none", "both"]
GameName = Literal["chess", "knight"]
Budget = Literal["time", "iterations"]


def printable_name(value: str | None) -> str | None:
    """A name people gave (a game's, an arena's): shown on pages and in PGN tags, so no
    control or invisible format characters; stripped, and a blank one is no name."""
    if value is None:
        return None
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co") for c in value):
        raise ValueError("must not contain control or invisible format characters")
    return value.strip() or None


#: An optional name checked by :func:`printable_name` (its length is the field's).
PrintableName = Annotated[str | None, AfterValidator(printable_name)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# ---------------------------------------------------------------- engine settings


class EngineFields(_Strict):
    """Search settings shared by ``POST /api/games`` and the ``settings`` frame.

    Absent fields keep their current value (or the server default). Ranges of
    ``threads``, ``movetime_ms`` and ``iterations`` come from the server
    settings (``GET /api/settings``); ``params`` are checked by the algorithm.
    """

    algorithm: str | None = Field(None, min_length=1, max_length=40)  # "": refused, not "keep"
    params: dict[str, Any] | None = None
    threads: int | None = Field(None, ge=1)
    budget: Budget | None = None
    movetime_ms: int | None = Field(None, ge=1)
    iterations: int | None = Field(None, ge=1)
    seed: int | None = Field(None, ge=0, le=2**63 - 1)


class CreateGame(EngineFields):
    """Body of ``POST /api/games``."""

    game: GameName = "chess"
    fen: str | None = Field(None, max_length=120)
    human: Human = "white"
    #: A label for the games list and the PGN ``Event`` (shown escaped, never as markup).
    name: PrintableName = Field(None, max_length=80)


# ---------------------------------------------------------------- client → server frames


class MoveFrame(_Strict):
    """Play a move for the side to move (players only, on the human's turn)."""

    type: Literal["move"]
    uci: str = Field(max_length=8)


class SearchFrame(_Strict):
    """``start``: think (the engine's move, or analysis on the human's turn);
    ``stop``: stop thinking (pauses the engine); ``step``: exactly one iteration."""

    type: Literal["search"]
    action: Literal["start", "stop", "step"]


class SettingsFrame(EngineFields):
    """Change the engine's settings and/or who the human plays."""

    type: Literal["settings"]
    human: Human | None = None


class UndoFrame(_Strict):
    """Take back the last move (the last move pair when playing the engine)."""

    type: Literal["undo"]


class SetupFrame(_Strict):
    """Start again from a FEN (``null``: the game's start position)."""

    type: Literal["setup"]
    fen: str | None = Field(None, max_length=120)


class GoFrame(_Strict):
    """ "Engine, move now": play the best move so far for the side to move."""

    type: Literal["go"]


class SubscribeFrame(_Strict):
    """Per-connection stream options: the tree in stats frames (whether, how many
    nodes, rows or compact arrays), the stats rate."""

    type: Literal["subscribe"]
    tree: bool | None = None
    hz: float | None = Field(None, gt=0)
    tree_nodes: int | None = Field(None, ge=MIN_TREE_NODES, le=MAX_TREE_NODES)
    tree_format: Literal["rows", "compact"] | None = None


class NodeFrame(_Strict):
    """Details of one node of the live search tree (answered with a ``node`` frame)."""

    type: Literal["node"]
    id: int = Field(ge=0)


class Contender(_Strict):
    """One side of an algorithm race: an algorithm, its parameters, its threads."""

    algorithm: str = Field(max_length=40)
    params: dict[str, Any] | None = None
    threads: int | None = Field(None, ge=1)
    label: str | None = Field(None, max_length=40)


class RaceFrame(_Strict):
    """``start``: search the game's position with two configurations side by side,
    kept in step by ``sync`` (equal iterations or equal time); ``stop``."""

    type: Literal["race"]
    action: Literal["start", "stop"]
    a: Contender | None = None
    b: Contender | None = None
    sync: Literal["iterations", "time"] | None = None
    iterations: int | None = Field(None, ge=1)
    movetime_ms: int | None = Field(None, ge=1)


class QuizFrame(_Strict):
    """Players: ``ask`` the room a question (``kind`` ``selection``: which child the
    next step's formula picks at the root; ``bestmove``: which move the engine plays),
    or ``withdraw`` the open one. Answered by a ``quiz`` frame to every watcher."""

    type: Literal["quiz"]
    action: Literal["ask", "withdraw"]
    kind: Literal["selection", "bestmove"] | None = None

    @model_validator(mode="after")
    def _kind_to_ask(self) -> QuizFrame:
        if self.action == "ask" and self.kind is None:
            raise ValueError("field 'kind' is required to ask: 'selection' or 'bestmove'")
        return self


class PredictFrame(_Strict):
    """Anyone watching (spectators too): one vote on the open question, naming a choice
    by its ``node`` id (selection questions) and/or its ``move`` (UCI)."""

    type: Literal["predict"]
    question: int = Field(ge=1)
    move: str | None = Field(None, min_length=4, max_length=5)
    node: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _names_a_choice(self) -> PredictFrame:
        if self.move is None and self.node is None:
            raise ValueError("a vote names a 'move' (UCI) or a 'node' id")
        return self


class PingFrame(_Strict):
    """Answered with a ``pong`` echoing ``t`` (clients measure round trips with it)."""

    type: Literal["ping"]
    t: float | int | str | None = None


ClientFrame = Annotated[
    MoveFrame
    | SearchFrame
    | SettingsFrame
    | UndoFrame
    | SetupFrame
    | GoFrame
    | SubscribeFrame
    | PingFrame
    | NodeFrame
    | RaceFrame
    | QuizFrame
    | PredictFrame,
    Field(discriminator="type"),
]
CLIENT_TYPES: frozenset[str] = frozenset(
    (
        "move",
        "search",
        "settings",
        "undo",
        "setup",
        "go",
        "subscribe",
        "ping",
        "node",
        "race",
        "quiz",
        "predict",
    )
)
#: Frames a spectator (no valid token) may send: the rest change the game (a vote
#: changes only the quiz's tally, never the game).
READ_ONLY_TYPES: frozenset[str] = frozenset(("subscribe", "ping", "node", "predict"))
client_frame: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)


def describe_validation_error(exc: ValidationError, *, skip_first: bool = True) -> str:
    """One readable sentence naming the offending field, e.g. ``field 'uci' is required``."""
    parts = []
    for err in exc.errors(include_url=False)[:3]:
        loc = [str(p) for p in err["loc"]]
        if skip_first and loc:  # the union's tag ("move"), not a field the client wrote
            loc = loc[1:]
        field = ".".join(loc) or "frame"
        kind = err["type"]
        if kind == "missing":
            parts.append(f"field '{field}' is required")
        elif kind == "extra_forbidden":
            parts.append(f"unknown field '{field}'")
        elif kind == "value_error" and not loc:  # a rule across fields: its own sentence
            parts.append(str(err.get("ctx", {}).get("error") or err["msg"]))
        else:
            parts.append(f"field '{field}': {err['msg']}")
    return "; ".join(parts) or "invalid frame"


# ---------------------------------------------------------------- server → client frames


class SearchStatus(BaseModel):
    status: Literal["idle", "queued", "running"]
    purpose: Literal["move", "analysis"] | None
    paused: bool
    queue_position: int | None  # 1 = next to run, while queued


class EngineSettingsOut(BaseModel):
    algorithm: str
    params: dict[str, Any]
    threads: int
    budget: Budget
    movetime_ms: int
    iterations: int
    seed: int


class HistoryEntry(BaseModel):
    uci: str
    san: str
    color: Literal["white", "black"]
    by: Literal["human", "engine"]
    fen: str | None  # board part of the FEN after the move (dropped first if the frame is large)
    check: bool
    n: int | None = None  # engine moves: visits of the move played
    q: float | None = None  # engine moves: its Q for the side that played it


class StateFrame(BaseModel):
    type: Literal["state"]
    id: str
    version: int  # grows with every change of the game
    role: Literal["player", "spectator"]
    name: str | None = None  # the label given at creation
    game: GameName
    title: str
    fen: str
    start_fen: str
    moves: list[str]
    history: list[HistoryEntry]
    history_start: int = 0  # plies before ``history[0]`` (left out of very long games)
    legal: list[str]
    turn: Literal["white", "black"]
    check: bool
    ply: int
    result: str | None
    reason: str | None
    human: Human
    settings: EngineSettingsOut
    search: SearchStatus
    last_move: str | None


class MoveRow(BaseModel):
    move: str
    san: str
    visits: int
    share: float | None
    q: float | None  # for the side to move at the root, in [0, 1]
    uct: float | None  # what the selection rule ranks by (UCB1, eval+U, or the AB score)
    eval: float | None  # [-1, 1] (or a mate score) for the side to move at the root
    prior: float | None
    pv: list[str]
    pv_san: list[str]
    pv_fen: str | None  # position at the end of the (possibly shortened) PV, for previews
    bound: str
    proof: int = 0  # proven for the side to move at the root: 1 win, -1 loss, 2 draw; 0 not
    mate: int | None = None  # plies to the end of a proven win or loss, when known


class TreeNode(BaseModel):
    id: int
    parent: int
    move: str
    san: str
    depth: int
    visits: int
    q: float | None  # for the side that made the move into this node
    q_white: float | None = None  # the same expected score for White
    value: float | None = None  # bfms: backed-up negamax value (same side as q)
    terminal: bool
    children: int


class ThreadMove(BaseModel):
    move: str
    san: str
    visits: int
    share: float | None  # of this thread's root visits
    q: float | None  # for the side to move at the root
    uct: float | None


class ThreadStatsOut(BaseModel):
    """One root-parallel thread's own root table, before the merge."""

    thread: int
    iterations: int
    nodes: int
    moves: list[ThreadMove] = []


class PoolStatus(BaseModel):
    capacity: int
    running: int
    queued: int


class StatsFrame(BaseModel):
    type: Literal["stats"]
    seq: int
    fen: str  # the root of the search: clients ignore stats whose fen is not the board's
    algorithm: str
    threads: int
    running: bool
    stop_reason: str | None
    iterations: int
    nodes: int
    elapsed_ms: float | None
    nps: float | None
    max_depth: int
    mean_depth: float | None
    depth: int
    memory_bytes: int
    bytes_per_node: float | None
    bestmove: str | None
    pv: list[str]
    pv_san: list[str]
    moves: list[MoveRow]
    thread_stats: list[ThreadStatsOut]
    tree: list[TreeNode] | list[list[Any]]  # arrays in ``tree_fields`` order when compact
    tree_trimmed: bool
    tree_fields: list[str] | None = None
    depth_histogram: list[int] = []  # tree nodes at each depth (all threads' trees)
    branching_factor: float | None = None  # mean children per expanded node
    moves_trimmed: bool = False
    search: SearchStatus
    pool: PoolStatus
    extra: dict[str, Any]


class StepFrame(BaseModel):
    type: Literal["step"]
    selection: Any
    expansion: Any
    simulation: Any
    backpropagation: Any
    algorithm: str | None = None
    stepping: Literal["iteration", "depth"] = "iteration"  # the algorithm's (depth: deepening)
    thread: int | None = None  # which root-parallel thread's tree ran the iteration
    iteration: int | None = None
    fen: str | None = None  # the root position
    path: list[str] = []  # the selection path from the root (UCI)
    leaf_fen: str | None = None  # where the simulation started
    end_fen: str | None = None  # where a playout ended
    # What the step view says about each phase: blocks of text (engine/explain/prose.py
    # describes them).
    prose: dict[str, list[dict[str, Any]]] | None = None


class NodeSelection(BaseModel):
    rule: str  # the algorithm's selection rule: "ucb1", "bfms", ...
    formula: str
    exploit_label: str = "W/N"  # what ``exploit`` is called: "W/N", "eval", ...
    score_label: str = "UCB1"  # what ``score`` is called: "UCB1", "eval+U", "PUCT", ...
    parent_visits: int
    params: dict[str, float]
    exploit: float | None  # W/N (UCB1) or the node's value (bfms); null while unvisited
    explore: float | None  # the exploration term
    score: float | None  # their sum; null while infinite (unvisited)


class NodeChild(BaseModel):
    id: int
    move: str
    san: str
    visits: int
    q: float | None
    terminal: bool
    proof: int = 0  # for the side that moves into the child: 1 win, -1 loss, 2 draw; 0 not
    mate: int | None = None  # plies to the end of a proven win or loss, when known
    exploit: float | None
    explore: float | None
    score: float | None


class NodeScoring(BaseModel):
    """How a node and its children were scored (``mcts``; null for the others). Scores
    are for the side that moved into the node, as ``eval`` (the root: the side not to
    move); depths are plies of alpha-beta before the quiescence search."""

    score: float | None  # the node's own leaf score; null: not scored yet
    scored_by: Literal["quiescence", "static", "game over"] | None
    depth: int | None  # the least its search can have had (null: not searched)
    depth_max: int | None  # the most (rescore plies its parent earned since)
    expand: Literal["lazy", "evaluate"]
    children: int
    children_scored: int
    partial: bool  # PARTIAL: some children wait to be scored (again), after a refresh
    children_depth: int | None  # what its untried children were scored at (evaluate)
    rescore_plies: int | None  # of which rescore plies
    key: str  # the position's Zobrist key, 16 hex digits
    tt: bool  # the leaf table is on
    table_depth: int  # the alpha-beta plies of the scores the table keeps (0: quiescence)
    in_table: bool
    table_score: float | None  # the table's score of the position, as ``score``
    # The card's rows that say it (engine/explain): [term, value] or [term, value, tooltip]
    prose: list[list[str]] = []


class NodeInfoFrame(BaseModel):
    """Answer to ``node``: one tree node in full (thread 0's tree, as drawn)."""

    type: Literal["node"]
    id: int
    thread: int
    root_fen: str
    fen: str  # the node's position
    path: list[str]
    path_san: list[str]
    depth: int
    mover: Literal["white", "black"] | None  # who made the move into the node
    visits: int
    q: float | None  # for the mover
    q_white: float | None
    eval: float | None  # for the mover
    value: float | None
    terminal: bool
    outcome: int | None
    proof: int = 0  # for the mover, as ``q``: 1 win, -1 loss, 2 draw; 0 not proven
    mate: int | None = None
    parent: int
    selection: NodeSelection | None  # null for the root
    pv: list[str]  # the line the search expects after the node
    pv_san: list[str]
    children: list[NodeChild]
    children_total: int
    legal_moves: int | None
    scoring: NodeScoring | None = None  # the algorithm's account of its scoring (mcts)


class RaceRow(BaseModel):
    move: str
    san: str
    rank: int
    other_rank: int | None  # rank of the move in the other side's table (null: absent)
    visits: int
    share: float | None
    q: float | None
    uct: float | None
    eval: float | None
    bound: str
    pv_san: list[str]


class RaceSide(BaseModel):
    label: str
    algorithm: str
    params: dict[str, Any]
    threads: int
    iterations: int
    nodes: int
    nps: float | None
    elapsed_ms: float | None
    depth: int
    max_depth: int
    stop_reason: str | None
    bestmove: str | None
    best_san: str | None
    pv: list[str]
    pv_san: list[str]
    moves: list[RaceRow]


class RaceOut(BaseModel):
    """A race's latest pairing of the two searches' snapshots."""

    type: Literal["race"]
    seq: int
    fen: str | None
    sync: Literal["iterations", "time"]
    round: int
    running: bool
    budget: dict[str, int]
    progress: float | None
    agree: bool
    labels: list[str]
    a: RaceSide
    b: RaceSide


class ErrorFrame(BaseModel):
    type: Literal["error"]
    code: str
    message: str
    request: str | None = None  # the ``type`` of the refused frame, when known


class QuizChoice(BaseModel):
    move: str
    san: str
    node: int | None = None  # selection questions: the child's id in thread 0's tree


class QuizTallyRow(BaseModel):
    move: str
    san: str
    votes: int


class QuizOut(BaseModel):
    """A question of the class quiz: sent when it opens, after every vote (the tally,
    counts only), and when it closes (``answer``) or is withdrawn (``reason``)."""

    type: Literal["quiz"]
    id: int
    kind: Literal["selection", "bestmove"]
    state: Literal["open", "closed", "withdrawn"]
    open: bool
    prompt: str
    note: str
    fen: str  # the position the question is about
    choices: list[QuizChoice]
    votes: int
    tally: list[QuizTallyRow]  # most votes first; choices nobody chose are left out
    text: str  # the tally as one line: "Nf3 14 · e4 9 · d4 3"
    answer: QuizChoice | None
    right: int | None  # votes for the answer, once closed
    reason: str | None  # why it was withdrawn


class PongFrame(BaseModel):
    type: Literal["pong"]
    t: float | int | str | None


SERVER_FRAMES: dict[str, type[BaseModel]] = {
    "state": StateFrame,
    "stats": StatsFrame,
    "step": StepFrame,
    "error": ErrorFrame,
    "pong": PongFrame,
    "node": NodeInfoFrame,
    "race": RaceOut,
    "quiz": QuizOut,
}


# ---------------------------------------------------------------- HTTP responses


class Health(BaseModel):
    """``status`` is ``ok`` (HTTP 200) or ``degraded`` (HTTP 503: the database is down)."""

    status: Literal["ok", "degraded"]
    pool: PoolStatus | None = None
    db: dict[str, Any] | None = None
    games_loaded: int | None = None
    max_games: int | None = None
    connections: int | None = None
    stopping: bool | None = None
    warm: bool | None = None
    memory_mb: float | None = None
    threads: int | None = None


class GameCreated(BaseModel):
    id: str
    token: str
    url: str  # the page of the game (spectators need no token)
    ws: str  # websocket path with the token
    state: StateFrame


# ---------------------------------------------------------------- learned evaluation


class EvaluationsRequest(_Strict):
    """Body of ``POST /api/evaluations``: a position and some of its moves, whose hand and
    learned static evaluations the page shows side by side."""

    game: GameName = "knight"
    fen: str = Field(min_length=1, max_length=120)
    moves: list[Annotated[str, Field(min_length=4, max_length=5)]] = Field(
        default_factory=list, max_length=256
    )


class EvalPairOut(BaseModel):
    """Static evaluations in [-1, 1]; ``learned`` is null without a learned evaluation,
    ``nnue`` without a network (always in knight chess)."""

    hand: float
    learned: float | None
    nnue: float | None = None


class MoveEvals(EvalPairOut):
    uci: str


class Evaluations(BaseModel):
    """Response of ``POST /api/evaluations``: every number for the side to move in ``fen``
    (for a move: the position after it, as the side making it sees it)."""

    game: GameName
    fen: str
    learned: bool  # a learned evaluation answered
    message: str | None  # why not, when it did not
    position: EvalPairOut
    moves: list[MoveEvals]
    nnue: bool = False  # the NNUE answered (chess with a network)
    nnue_message: str | None = None  # why not, when it did not


class PieceContributionOut(BaseModel):
    """One piece's worth in centipawns for the side to move: the position's value with it
    minus without it, under each evaluation (null: a king, or no network)."""

    square: str
    piece: str  # FEN letter: upper case White
    hand: float | None
    nnue: float | None


class NNUEPosition(BaseModel):
    """Response of ``GET /api/learning/nnue/position``: what the NNUE adds over the hand
    evaluation in one chess position, every number for its side to move (``turn``)."""

    fen: str
    turn: Literal["white", "black"]
    available: bool  # a network answered
    message: str | None  # why not, when it did not
    hand_cp: float
    hand_eval: float  # [-1, 1], as a search with eval=hand sees it
    nnue_cp: float | None
    nnue_eval: float | None
    difference_cp: float | None  # nnue_cp - hand_cp
    pieces: list[PieceContributionOut]  # a8 … h1


# ---------------------------------------------------------------- analyses


class AnalysisRequest(_Strict):
    """Body of ``POST /api/analyses``: a game as PGN (or a FEN line, then moves) and how to
    search each of its positions (ranges: ``GET /api/analyses``'s ``limits``)."""

    pgn: str = Field(min_length=1, max_length=1_000_000)
    algorithm: str | None = Field(None, min_length=1, max_length=40)
    params: dict[str, Any] | None = None
    movetime_ms: int | None = Field(None, ge=1)
