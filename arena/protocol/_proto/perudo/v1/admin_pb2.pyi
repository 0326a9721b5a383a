from arena.protocol._proto.perudo.v1 import referee_pb2 as _referee_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_STATUS_UNSPECIFIED: _ClassVar[RunStatus]
    RUN_STATUS_FINISHED: _ClassVar[RunStatus]
    RUN_STATUS_INTERRUPTED: _ClassVar[RunStatus]
RUN_STATUS_UNSPECIFIED: RunStatus
RUN_STATUS_FINISHED: RunStatus
RUN_STATUS_INTERRUPTED: RunStatus

class GetStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ConnectedBot(_message.Message):
    __slots__ = ("name", "sessions", "round_trip_ms")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    ROUND_TRIP_MS_FIELD_NUMBER: _ClassVar[int]
    name: str
    sessions: int
    round_trip_ms: float
    def __init__(self, name: _Optional[str] = ..., sessions: _Optional[int] = ..., round_trip_ms: _Optional[float] = ...) -> None: ...

class GetStatusResponse(_message.Message):
    __slots__ = ("bots", "tournament", "games_done", "games_total", "waiting")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    GAMES_DONE_FIELD_NUMBER: _ClassVar[int]
    GAMES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[ConnectedBot]
    tournament: str
    games_done: int
    games_total: int
    waiting: _containers.RepeatedCompositeFieldContainer[WaitingBot]
    def __init__(self, bots: _Optional[_Iterable[_Union[ConnectedBot, _Mapping]]] = ..., tournament: _Optional[str] = ..., games_done: _Optional[int] = ..., games_total: _Optional[int] = ..., waiting: _Optional[_Iterable[_Union[WaitingBot, _Mapping]]] = ...) -> None: ...

class WaitingBot(_message.Message):
    __slots__ = ("name", "grace_left")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GRACE_LEFT_FIELD_NUMBER: _ClassVar[int]
    name: str
    grace_left: float
    def __init__(self, name: _Optional[str] = ..., grace_left: _Optional[float] = ...) -> None: ...

class StartTournamentRequest(_message.Message):
    __slots__ = ("games", "table_size", "jobs", "move_time", "bots_dir", "name", "only", "resume", "deals", "sandbox", "time_margin", "force_jobs", "time_bank", "increment", "recover", "rebuild", "gauntlet", "build_network", "store_patience", "seed", "ruleset", "timeouts", "connect_timeout", "memory_mb", "cpu_s", "build_timeout", "until_confident", "scratch_mb", "lag_allowance")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIME_FIELD_NUMBER: _ClassVar[int]
    BOTS_DIR_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ONLY_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_FIELD_NUMBER: _ClassVar[int]
    TIME_MARGIN_FIELD_NUMBER: _ClassVar[int]
    FORCE_JOBS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_FIELD_NUMBER: _ClassVar[int]
    RECOVER_FIELD_NUMBER: _ClassVar[int]
    REBUILD_FIELD_NUMBER: _ClassVar[int]
    GAUNTLET_FIELD_NUMBER: _ClassVar[int]
    BUILD_NETWORK_FIELD_NUMBER: _ClassVar[int]
    STORE_PATIENCE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    CONNECT_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_MB_FIELD_NUMBER: _ClassVar[int]
    CPU_S_FIELD_NUMBER: _ClassVar[int]
    BUILD_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    UNTIL_CONFIDENT_FIELD_NUMBER: _ClassVar[int]
    SCRATCH_MB_FIELD_NUMBER: _ClassVar[int]
    LAG_ALLOWANCE_FIELD_NUMBER: _ClassVar[int]
    games: int
    table_size: int
    jobs: int
    move_time: float
    bots_dir: str
    name: str
    only: _containers.RepeatedScalarFieldContainer[str]
    resume: str
    deals: str
    sandbox: str
    time_margin: float
    force_jobs: bool
    time_bank: float
    increment: float
    recover: int
    rebuild: bool
    gauntlet: str
    build_network: str
    store_patience: float
    seed: bytes
    ruleset: _referee_pb2.Ruleset
    timeouts: bool
    connect_timeout: float
    memory_mb: int
    cpu_s: int
    build_timeout: float
    until_confident: float
    scratch_mb: int
    lag_allowance: float
    def __init__(self, games: _Optional[int] = ..., table_size: _Optional[int] = ..., jobs: _Optional[int] = ..., move_time: _Optional[float] = ..., bots_dir: _Optional[str] = ..., name: _Optional[str] = ..., only: _Optional[_Iterable[str]] = ..., resume: _Optional[str] = ..., deals: _Optional[str] = ..., sandbox: _Optional[str] = ..., time_margin: _Optional[float] = ..., force_jobs: _Optional[bool] = ..., time_bank: _Optional[float] = ..., increment: _Optional[float] = ..., recover: _Optional[int] = ..., rebuild: _Optional[bool] = ..., gauntlet: _Optional[str] = ..., build_network: _Optional[str] = ..., store_patience: _Optional[float] = ..., seed: _Optional[bytes] = ..., ruleset: _Optional[_Union[_referee_pb2.Ruleset, _Mapping]] = ..., timeouts: _Optional[bool] = ..., connect_timeout: _Optional[float] = ..., memory_mb: _Optional[int] = ..., cpu_s: _Optional[int] = ..., build_timeout: _Optional[float] = ..., until_confident: _Optional[float] = ..., scratch_mb: _Optional[int] = ..., lag_allowance: _Optional[float] = ...) -> None: ...

class TournamentEvent(_message.Message):
    __slots__ = ("note", "error", "build", "started", "game", "finished")
    NOTE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    BUILD_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    note: str
    error: str
    build: BuildChanged
    started: TournamentStarted
    game: GameFinished
    finished: TournamentFinished
    def __init__(self, note: _Optional[str] = ..., error: _Optional[str] = ..., build: _Optional[_Union[BuildChanged, _Mapping]] = ..., started: _Optional[_Union[TournamentStarted, _Mapping]] = ..., game: _Optional[_Union[GameFinished, _Mapping]] = ..., finished: _Optional[_Union[TournamentFinished, _Mapping]] = ...) -> None: ...

class TournamentProgress(_message.Message):
    __slots__ = ("done", "total", "played_now", "elapsed")
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PLAYED_NOW_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    done: int
    total: int
    played_now: int
    elapsed: float
    def __init__(self, done: _Optional[int] = ..., total: _Optional[int] = ..., played_now: _Optional[int] = ..., elapsed: _Optional[float] = ...) -> None: ...

class BuildChanged(_message.Message):
    __slots__ = ("bot", "running")
    BOT_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    bot: str
    running: bool
    def __init__(self, bot: _Optional[str] = ..., running: _Optional[bool] = ...) -> None: ...

class TournamentStarted(_message.Message):
    __slots__ = ("folder", "entrants", "progress")
    FOLDER_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    folder: str
    entrants: _containers.RepeatedScalarFieldContainer[str]
    progress: TournamentProgress
    def __init__(self, folder: _Optional[str] = ..., entrants: _Optional[_Iterable[str]] = ..., progress: _Optional[_Union[TournamentProgress, _Mapping]] = ...) -> None: ...

class GameFinished(_message.Message):
    __slots__ = ("line", "table", "progress")
    LINE_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    line: GameLine
    table: _containers.RepeatedCompositeFieldContainer[Standing]
    progress: TournamentProgress
    def __init__(self, line: _Optional[_Union[GameLine, _Mapping]] = ..., table: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., progress: _Optional[_Union[TournamentProgress, _Mapping]] = ...) -> None: ...

class GameLine(_message.Message):
    __slots__ = ("game", "index", "players", "ranking", "faults", "think_ms", "deal_key", "decisions", "started", "duration_s", "referee_late")
    class ThinkMsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    THINK_MS_FIELD_NUMBER: _ClassVar[int]
    DEAL_KEY_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    DURATION_S_FIELD_NUMBER: _ClassVar[int]
    REFEREE_LATE_FIELD_NUMBER: _ClassVar[int]
    game: str
    index: int
    players: _containers.RepeatedScalarFieldContainer[str]
    ranking: _containers.RepeatedScalarFieldContainer[str]
    faults: _containers.RepeatedCompositeFieldContainer[FaultRecord]
    think_ms: _containers.ScalarMap[str, float]
    deal_key: str
    decisions: int
    started: float
    duration_s: float
    referee_late: _containers.RepeatedCompositeFieldContainer[LateDecision]
    def __init__(self, game: _Optional[str] = ..., index: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., ranking: _Optional[_Iterable[str]] = ..., faults: _Optional[_Iterable[_Union[FaultRecord, _Mapping]]] = ..., think_ms: _Optional[_Mapping[str, float]] = ..., deal_key: _Optional[str] = ..., decisions: _Optional[int] = ..., started: _Optional[float] = ..., duration_s: _Optional[float] = ..., referee_late: _Optional[_Iterable[_Union[LateDecision, _Mapping]]] = ...) -> None: ...

class FaultRecord(_message.Message):
    __slots__ = ("game", "bot", "seat", "round", "kind", "detail", "sent", "request_id")
    GAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    SENT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game: str
    bot: str
    seat: int
    round: int
    kind: _referee_pb2.FaultKind
    detail: str
    sent: str
    request_id: int
    def __init__(self, game: _Optional[str] = ..., bot: _Optional[str] = ..., seat: _Optional[int] = ..., round: _Optional[int] = ..., kind: _Optional[_Union[_referee_pb2.FaultKind, str]] = ..., detail: _Optional[str] = ..., sent: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...

class LateDecision(_message.Message):
    __slots__ = ("seat", "request_id", "wall_ms", "bot_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    WALL_MS_FIELD_NUMBER: _ClassVar[int]
    BOT_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    request_id: int
    wall_ms: float
    bot_ms: float
    def __init__(self, seat: _Optional[int] = ..., request_id: _Optional[int] = ..., wall_ms: _Optional[float] = ..., bot_ms: _Optional[float] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("bot", "mu", "sigma", "games", "wins", "place_sum", "faults", "median_decision_ms")
    BOT_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    PLACE_SUM_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    MEDIAN_DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    bot: str
    mu: float
    sigma: float
    games: int
    wins: int
    place_sum: int
    faults: int
    median_decision_ms: float
    def __init__(self, bot: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., place_sum: _Optional[int] = ..., faults: _Optional[int] = ..., median_decision_ms: _Optional[float] = ...) -> None: ...

class Confidence(_message.Message):
    __slots__ = ("bots", "level", "resamples", "games", "groups", "ahead")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    RESAMPLES_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    AHEAD_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[BotConfidence]
    level: float
    resamples: int
    games: int
    groups: int
    ahead: _containers.RepeatedCompositeFieldContainer[ShareRow]
    def __init__(self, bots: _Optional[_Iterable[_Union[BotConfidence, _Mapping]]] = ..., level: _Optional[float] = ..., resamples: _Optional[int] = ..., games: _Optional[int] = ..., groups: _Optional[int] = ..., ahead: _Optional[_Iterable[_Union[ShareRow, _Mapping]]] = ...) -> None: ...

class ShareRow(_message.Message):
    __slots__ = ("shares",)
    SHARES_FIELD_NUMBER: _ClassVar[int]
    shares: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, shares: _Optional[_Iterable[float]] = ...) -> None: ...

class BotConfidence(_message.Message):
    __slots__ = ("bot", "strength", "low", "high", "rank_probabilities", "rank_low", "rank_high")
    BOT_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    RANK_PROBABILITIES_FIELD_NUMBER: _ClassVar[int]
    RANK_LOW_FIELD_NUMBER: _ClassVar[int]
    RANK_HIGH_FIELD_NUMBER: _ClassVar[int]
    bot: str
    strength: float
    low: float
    high: float
    rank_probabilities: _containers.RepeatedScalarFieldContainer[float]
    rank_low: int
    rank_high: int
    def __init__(self, bot: _Optional[str] = ..., strength: _Optional[float] = ..., low: _Optional[float] = ..., high: _Optional[float] = ..., rank_probabilities: _Optional[_Iterable[float]] = ..., rank_low: _Optional[int] = ..., rank_high: _Optional[int] = ...) -> None: ...

class TournamentFinished(_message.Message):
    __slots__ = ("folder", "status", "games", "total", "seed_hex", "table", "confidence", "separation", "outcome", "skipped", "faults", "slowest", "times", "notes")
    FOLDER_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    SEED_HEX_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    SEPARATION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    SLOWEST_FIELD_NUMBER: _ClassVar[int]
    TIMES_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    folder: str
    status: RunStatus
    games: int
    total: int
    seed_hex: str
    table: _containers.RepeatedCompositeFieldContainer[Standing]
    confidence: Confidence
    separation: str
    outcome: str
    skipped: _containers.RepeatedCompositeFieldContainer[SkippedBot]
    faults: _containers.RepeatedCompositeFieldContainer[BotFaults]
    slowest: _containers.RepeatedCompositeFieldContainer[SlowDecision]
    times: _containers.RepeatedCompositeFieldContainer[BotTimes]
    notes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, folder: _Optional[str] = ..., status: _Optional[_Union[RunStatus, str]] = ..., games: _Optional[int] = ..., total: _Optional[int] = ..., seed_hex: _Optional[str] = ..., table: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., confidence: _Optional[_Union[Confidence, _Mapping]] = ..., separation: _Optional[str] = ..., outcome: _Optional[str] = ..., skipped: _Optional[_Iterable[_Union[SkippedBot, _Mapping]]] = ..., faults: _Optional[_Iterable[_Union[BotFaults, _Mapping]]] = ..., slowest: _Optional[_Iterable[_Union[SlowDecision, _Mapping]]] = ..., times: _Optional[_Iterable[_Union[BotTimes, _Mapping]]] = ..., notes: _Optional[_Iterable[str]] = ...) -> None: ...

class SkippedBot(_message.Message):
    __slots__ = ("bot", "reason")
    BOT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    bot: str
    reason: str
    def __init__(self, bot: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class BotFaults(_message.Message):
    __slots__ = ("bot", "counts")
    BOT_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    bot: str
    counts: _containers.RepeatedCompositeFieldContainer[FaultCount]
    def __init__(self, bot: _Optional[str] = ..., counts: _Optional[_Iterable[_Union[FaultCount, _Mapping]]] = ...) -> None: ...

class FaultCount(_message.Message):
    __slots__ = ("kind", "count")
    KIND_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    kind: _referee_pb2.FaultKind
    count: int
    def __init__(self, kind: _Optional[_Union[_referee_pb2.FaultKind, str]] = ..., count: _Optional[int] = ...) -> None: ...

class SlowDecision(_message.Message):
    __slots__ = ("ms", "bot", "game", "round", "action", "limit_ms")
    MS_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    ms: float
    bot: str
    game: str
    round: int
    action: str
    limit_ms: float
    def __init__(self, ms: _Optional[float] = ..., bot: _Optional[str] = ..., game: _Optional[str] = ..., round: _Optional[int] = ..., action: _Optional[str] = ..., limit_ms: _Optional[float] = ...) -> None: ...

class BotTimes(_message.Message):
    __slots__ = ("bot", "decisions", "median_ms", "p99_ms", "slowest_ms", "near_limit", "closest_ms", "closest_limit_ms", "round_trip_ms")
    BOT_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    MEDIAN_MS_FIELD_NUMBER: _ClassVar[int]
    P99_MS_FIELD_NUMBER: _ClassVar[int]
    SLOWEST_MS_FIELD_NUMBER: _ClassVar[int]
    NEAR_LIMIT_FIELD_NUMBER: _ClassVar[int]
    CLOSEST_MS_FIELD_NUMBER: _ClassVar[int]
    CLOSEST_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    ROUND_TRIP_MS_FIELD_NUMBER: _ClassVar[int]
    bot: str
    decisions: int
    median_ms: float
    p99_ms: float
    slowest_ms: float
    near_limit: int
    closest_ms: float
    closest_limit_ms: float
    round_trip_ms: float
    def __init__(self, bot: _Optional[str] = ..., decisions: _Optional[int] = ..., median_ms: _Optional[float] = ..., p99_ms: _Optional[float] = ..., slowest_ms: _Optional[float] = ..., near_limit: _Optional[int] = ..., closest_ms: _Optional[float] = ..., closest_limit_ms: _Optional[float] = ..., round_trip_ms: _Optional[float] = ...) -> None: ...

class StopTournamentRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StopTournamentResponse(_message.Message):
    __slots__ = ("stopping",)
    STOPPING_FIELD_NUMBER: _ClassVar[int]
    stopping: bool
    def __init__(self, stopping: _Optional[bool] = ...) -> None: ...

class ListSubmissionsRequest(_message.Message):
    __slots__ = ("author",)
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    author: str
    def __init__(self, author: _Optional[str] = ...) -> None: ...

class SubmissionRecord(_message.Message):
    __slots__ = ("name", "version", "state", "received", "size", "sha256", "reason", "withdrawn", "playing")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWN_FIELD_NUMBER: _ClassVar[int]
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    state: str
    received: float
    size: int
    sha256: str
    reason: str
    withdrawn: float
    playing: bool
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., state: _Optional[str] = ..., received: _Optional[float] = ..., size: _Optional[int] = ..., sha256: _Optional[str] = ..., reason: _Optional[str] = ..., withdrawn: _Optional[float] = ..., playing: _Optional[bool] = ...) -> None: ...

class ListSubmissionsResponse(_message.Message):
    __slots__ = ("submissions",)
    SUBMISSIONS_FIELD_NUMBER: _ClassVar[int]
    submissions: _containers.RepeatedCompositeFieldContainer[SubmissionRecord]
    def __init__(self, submissions: _Optional[_Iterable[_Union[SubmissionRecord, _Mapping]]] = ...) -> None: ...

class ListRequestsRequest(_message.Message):
    __slots__ = ("author",)
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    author: str
    def __init__(self, author: _Optional[str] = ...) -> None: ...

class RequestRecord(_message.Message):
    __slots__ = ("id", "name", "seats", "games", "requested", "state", "reason", "played")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    seats: _containers.RepeatedScalarFieldContainer[str]
    games: int
    requested: float
    state: str
    reason: str
    played: int
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., seats: _Optional[_Iterable[str]] = ..., games: _Optional[int] = ..., requested: _Optional[float] = ..., state: _Optional[str] = ..., reason: _Optional[str] = ..., played: _Optional[int] = ...) -> None: ...

class ListRequestsResponse(_message.Message):
    __slots__ = ("requests",)
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[RequestRecord]
    def __init__(self, requests: _Optional[_Iterable[_Union[RequestRecord, _Mapping]]] = ...) -> None: ...

class WithdrawSubmissionRequest(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class WithdrawSubmissionResponse(_message.Message):
    __slots__ = ("playing",)
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    playing: int
    def __init__(self, playing: _Optional[int] = ...) -> None: ...

class LadderRequest(_message.Message):
    __slots__ = ("action",)
    class Action(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ACTION_UNSPECIFIED: _ClassVar[LadderRequest.Action]
        ACTION_STATUS: _ClassVar[LadderRequest.Action]
        ACTION_START: _ClassVar[LadderRequest.Action]
        ACTION_STOP: _ClassVar[LadderRequest.Action]
    ACTION_UNSPECIFIED: LadderRequest.Action
    ACTION_STATUS: LadderRequest.Action
    ACTION_START: LadderRequest.Action
    ACTION_STOP: LadderRequest.Action
    ACTION_FIELD_NUMBER: _ClassVar[int]
    action: LadderRequest.Action
    def __init__(self, action: _Optional[_Union[LadderRequest.Action, str]] = ...) -> None: ...

class LadderResponse(_message.Message):
    __slots__ = ("running", "paused", "standings", "latest", "error", "table_sizes", "tables", "sitting_out")
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    LATEST_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZES_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    SITTING_OUT_FIELD_NUMBER: _ClassVar[int]
    running: bool
    paused: bool
    standings: _containers.RepeatedCompositeFieldContainer[LadderStanding]
    latest: _containers.RepeatedCompositeFieldContainer[LadderGame]
    error: str
    table_sizes: _containers.RepeatedScalarFieldContainer[int]
    tables: _containers.RepeatedCompositeFieldContainer[LadderTable]
    sitting_out: _containers.RepeatedCompositeFieldContainer[LadderSittingOut]
    def __init__(self, running: _Optional[bool] = ..., paused: _Optional[bool] = ..., standings: _Optional[_Iterable[_Union[LadderStanding, _Mapping]]] = ..., latest: _Optional[_Iterable[_Union[LadderGame, _Mapping]]] = ..., error: _Optional[str] = ..., table_sizes: _Optional[_Iterable[int]] = ..., tables: _Optional[_Iterable[_Union[LadderTable, _Mapping]]] = ..., sitting_out: _Optional[_Iterable[_Union[LadderSittingOut, _Mapping]]] = ...) -> None: ...

class LadderSittingOut(_message.Message):
    __slots__ = ("name", "seconds", "why")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    name: str
    seconds: float
    why: str
    def __init__(self, name: _Optional[str] = ..., seconds: _Optional[float] = ..., why: _Optional[str] = ...) -> None: ...

class LadderTable(_message.Message):
    __slots__ = ("round", "seats")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    round: str
    seats: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, round: _Optional[str] = ..., seats: _Optional[_Iterable[str]] = ...) -> None: ...

class LadderStanding(_message.Message):
    __slots__ = ("name", "mu", "sigma", "games", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    mu: float
    sigma: float
    games: int
    version: int
    def __init__(self, name: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., games: _Optional[int] = ..., version: _Optional[int] = ...) -> None: ...

class LadderGame(_message.Message):
    __slots__ = ("round", "game_id", "ranking")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    round: str
    game_id: str
    ranking: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, round: _Optional[str] = ..., game_id: _Optional[str] = ..., ranking: _Optional[_Iterable[str]] = ...) -> None: ...

class StartFinalRequest(_message.Message):
    __slots__ = ("night", "top")
    NIGHT_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    night: StartTournamentRequest
    top: int
    def __init__(self, night: _Optional[_Union[StartTournamentRequest, _Mapping]] = ..., top: _Optional[int] = ...) -> None: ...

class GetFinalRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class FinalEntrant(_message.Message):
    __slots__ = ("name", "version", "strength", "low", "high", "rank_low", "rank_high", "games", "wins")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    RANK_LOW_FIELD_NUMBER: _ClassVar[int]
    RANK_HIGH_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    strength: float
    low: float
    high: float
    rank_low: int
    rank_high: int
    games: int
    wins: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., strength: _Optional[float] = ..., low: _Optional[float] = ..., high: _Optional[float] = ..., rank_low: _Optional[int] = ..., rank_high: _Optional[int] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ...) -> None: ...

class FinalStatus(_message.Message):
    __slots__ = ("state", "submissions_closed", "frozen_at", "tournament", "entrants", "ended_at", "level", "outcome")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SUBMISSIONS_CLOSED_FIELD_NUMBER: _ClassVar[int]
    FROZEN_AT_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    state: str
    submissions_closed: bool
    frozen_at: float
    tournament: str
    entrants: _containers.RepeatedCompositeFieldContainer[FinalEntrant]
    ended_at: float
    level: float
    outcome: str
    def __init__(self, state: _Optional[str] = ..., submissions_closed: _Optional[bool] = ..., frozen_at: _Optional[float] = ..., tournament: _Optional[str] = ..., entrants: _Optional[_Iterable[_Union[FinalEntrant, _Mapping]]] = ..., ended_at: _Optional[float] = ..., level: _Optional[float] = ..., outcome: _Optional[str] = ...) -> None: ...
