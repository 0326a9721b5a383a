from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ConnectedBot(_message.Message):
    __slots__ = ("name", "sessions")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    sessions: int
    def __init__(self, name: _Optional[str] = ..., sessions: _Optional[int] = ...) -> None: ...

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
    __slots__ = ("games", "table_size", "jobs", "move_time", "rules", "rule_fields", "seed_hex", "bots_dir", "name", "only", "resume", "deals", "sandbox", "time_margin", "force_jobs", "time_bank", "increment", "recover", "rebuild", "gauntlet", "build_network", "store_patience")
    class RuleFieldsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIME_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELDS_FIELD_NUMBER: _ClassVar[int]
    SEED_HEX_FIELD_NUMBER: _ClassVar[int]
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
    games: int
    table_size: int
    jobs: int
    move_time: float
    rules: str
    rule_fields: _containers.ScalarMap[str, str]
    seed_hex: str
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
    def __init__(self, games: _Optional[int] = ..., table_size: _Optional[int] = ..., jobs: _Optional[int] = ..., move_time: _Optional[float] = ..., rules: _Optional[str] = ..., rule_fields: _Optional[_Mapping[str, str]] = ..., seed_hex: _Optional[str] = ..., bots_dir: _Optional[str] = ..., name: _Optional[str] = ..., only: _Optional[_Iterable[str]] = ..., resume: _Optional[str] = ..., deals: _Optional[str] = ..., sandbox: _Optional[str] = ..., time_margin: _Optional[float] = ..., force_jobs: _Optional[bool] = ..., time_bank: _Optional[float] = ..., increment: _Optional[float] = ..., recover: _Optional[int] = ..., rebuild: _Optional[bool] = ..., gauntlet: _Optional[str] = ..., build_network: _Optional[str] = ..., store_patience: _Optional[float] = ...) -> None: ...

class TournamentEvent(_message.Message):
    __slots__ = ("note", "started_json", "game_json", "finished_json", "error", "build_json")
    NOTE_FIELD_NUMBER: _ClassVar[int]
    STARTED_JSON_FIELD_NUMBER: _ClassVar[int]
    GAME_JSON_FIELD_NUMBER: _ClassVar[int]
    FINISHED_JSON_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    BUILD_JSON_FIELD_NUMBER: _ClassVar[int]
    note: str
    started_json: str
    game_json: str
    finished_json: str
    error: str
    build_json: str
    def __init__(self, note: _Optional[str] = ..., started_json: _Optional[str] = ..., game_json: _Optional[str] = ..., finished_json: _Optional[str] = ..., error: _Optional[str] = ..., build_json: _Optional[str] = ...) -> None: ...

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
