from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SubmitRequest(_message.Message):
    __slots__ = ("header", "chunk")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    header: SubmitHeader
    chunk: bytes
    def __init__(self, header: _Optional[_Union[SubmitHeader, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class SubmitHeader(_message.Message):
    __slots__ = ("name", "token", "size", "format")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    size: int
    format: str
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ..., size: _Optional[int] = ..., format: _Optional[str] = ...) -> None: ...

class SubmitReady(_message.Message):
    __slots__ = ("chunk_bytes", "max_bytes")
    CHUNK_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    chunk_bytes: int
    max_bytes: int
    def __init__(self, chunk_bytes: _Optional[int] = ..., max_bytes: _Optional[int] = ...) -> None: ...

class SubmitLine(_message.Message):
    __slots__ = ("stage", "text")
    STAGE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    stage: str
    text: str
    def __init__(self, stage: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class SubmitCheck(_message.Message):
    __slots__ = ("name", "passed", "detail", "warning", "log_tail")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    WARNING_FIELD_NUMBER: _ClassVar[int]
    LOG_TAIL_FIELD_NUMBER: _ClassVar[int]
    name: str
    passed: bool
    detail: str
    warning: str
    log_tail: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., passed: _Optional[bool] = ..., detail: _Optional[str] = ..., warning: _Optional[str] = ..., log_tail: _Optional[_Iterable[str]] = ...) -> None: ...

class SubmitVerdict(_message.Message):
    __slots__ = ("accepted", "name", "version", "reason", "sha256")
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    accepted: bool
    name: str
    version: int
    reason: str
    sha256: str
    def __init__(self, accepted: _Optional[bool] = ..., name: _Optional[str] = ..., version: _Optional[int] = ..., reason: _Optional[str] = ..., sha256: _Optional[str] = ...) -> None: ...

class SubmitReply(_message.Message):
    __slots__ = ("ready", "line", "check", "verdict")
    READY_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    ready: SubmitReady
    line: SubmitLine
    check: SubmitCheck
    verdict: SubmitVerdict
    def __init__(self, ready: _Optional[_Union[SubmitReady, _Mapping]] = ..., line: _Optional[_Union[SubmitLine, _Mapping]] = ..., check: _Optional[_Union[SubmitCheck, _Mapping]] = ..., verdict: _Optional[_Union[SubmitVerdict, _Mapping]] = ...) -> None: ...

class UseVersionRequest(_message.Message):
    __slots__ = ("name", "token", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    version: int
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class GamesRequest(_message.Message):
    __slots__ = ("name", "token", "version", "against", "games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AGAINST_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    version: int
    against: _containers.RepeatedScalarFieldContainer[str]
    games: int
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ..., version: _Optional[int] = ..., against: _Optional[_Iterable[str]] = ..., games: _Optional[int] = ...) -> None: ...

class RequestReply(_message.Message):
    __slots__ = ("ticket", "game", "outcome")
    TICKET_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    ticket: RequestTicket
    game: RequestedGame
    outcome: RequestOutcome
    def __init__(self, ticket: _Optional[_Union[RequestTicket, _Mapping]] = ..., game: _Optional[_Union[RequestedGame, _Mapping]] = ..., outcome: _Optional[_Union[RequestOutcome, _Mapping]] = ...) -> None: ...

class RequestTicket(_message.Message):
    __slots__ = ("id", "seats", "games", "left_today", "ahead")
    ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    LEFT_TODAY_FIELD_NUMBER: _ClassVar[int]
    AHEAD_FIELD_NUMBER: _ClassVar[int]
    id: str
    seats: _containers.RepeatedScalarFieldContainer[str]
    games: int
    left_today: int
    ahead: int
    def __init__(self, id: _Optional[str] = ..., seats: _Optional[_Iterable[str]] = ..., games: _Optional[int] = ..., left_today: _Optional[int] = ..., ahead: _Optional[int] = ...) -> None: ...

class RequestedGame(_message.Message):
    __slots__ = ("game", "ranking", "replay")
    GAME_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    game: str
    ranking: _containers.RepeatedScalarFieldContainer[str]
    replay: str
    def __init__(self, game: _Optional[str] = ..., ranking: _Optional[_Iterable[str]] = ..., replay: _Optional[str] = ...) -> None: ...

class OpponentScore(_message.Message):
    __slots__ = ("opponent", "games", "ahead")
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    AHEAD_FIELD_NUMBER: _ClassVar[int]
    opponent: str
    games: int
    ahead: int
    def __init__(self, opponent: _Optional[str] = ..., games: _Optional[int] = ..., ahead: _Optional[int] = ...) -> None: ...

class RequestOutcome(_message.Message):
    __slots__ = ("accepted", "id", "state", "reason", "games", "scores", "places")
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    accepted: bool
    id: str
    state: str
    reason: str
    games: _containers.RepeatedCompositeFieldContainer[RequestedGame]
    scores: _containers.RepeatedCompositeFieldContainer[OpponentScore]
    places: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, accepted: _Optional[bool] = ..., id: _Optional[str] = ..., state: _Optional[str] = ..., reason: _Optional[str] = ..., games: _Optional[_Iterable[_Union[RequestedGame, _Mapping]]] = ..., scores: _Optional[_Iterable[_Union[OpponentScore, _Mapping]]] = ..., places: _Optional[_Iterable[int]] = ...) -> None: ...
