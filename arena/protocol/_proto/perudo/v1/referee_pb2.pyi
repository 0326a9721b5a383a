from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RequestKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REQUEST_KIND_UNSPECIFIED: _ClassVar[RequestKind]
    REQUEST_KIND_TURN: _ClassVar[RequestKind]
    REQUEST_KIND_CALZA_OFFER: _ClassVar[RequestKind]

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_BID: _ClassVar[ActionKind]
    ACTION_KIND_DUDO: _ClassVar[ActionKind]
    ACTION_KIND_CALZA: _ClassVar[ActionKind]
    ACTION_KIND_PASS: _ClassVar[ActionKind]

class Opener(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OPENER_UNSPECIFIED: _ClassVar[Opener]
    OPENER_ROLLOFF: _ClassVar[Opener]
    OPENER_SEAT0: _ClassVar[Opener]

class CalzaRule(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CALZA_RULE_UNSPECIFIED: _ClassVar[CalzaRule]
    CALZA_RULE_OFF: _ClassVar[CalzaRule]
    CALZA_RULE_TURN: _ClassVar[CalzaRule]
    CALZA_RULE_ANY: _ClassVar[CalzaRule]

class FaultPenalty(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_PENALTY_UNSPECIFIED: _ClassVar[FaultPenalty]
    FAULT_PENALTY_ELIMINATE: _ClassVar[FaultPenalty]
    FAULT_PENALTY_LOSE_DIE: _ClassVar[FaultPenalty]

class PalificoFaceChange(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PALIFICO_FACE_CHANGE_UNSPECIFIED: _ClassVar[PalificoFaceChange]
    PALIFICO_FACE_CHANGE_NONE: _ClassVar[PalificoFaceChange]
    PALIFICO_FACE_CHANGE_OTHERS: _ClassVar[PalificoFaceChange]
    PALIFICO_FACE_CHANGE_ALL: _ClassVar[PalificoFaceChange]

class Side(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIDE_UNSPECIFIED: _ClassVar[Side]
    SIDE_LEFT: _ClassVar[Side]
    SIDE_RIGHT: _ClassVar[Side]

class RoundEnd(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROUND_END_UNSPECIFIED: _ClassVar[RoundEnd]
    ROUND_END_DUDO: _ClassVar[RoundEnd]
    ROUND_END_CALZA: _ClassVar[RoundEnd]
    ROUND_END_FAULT: _ClassVar[RoundEnd]

class FaultKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_KIND_UNSPECIFIED: _ClassVar[FaultKind]
    FAULT_KIND_TIMEOUT: _ClassVar[FaultKind]
    FAULT_KIND_ILLEGAL_ACTION: _ClassVar[FaultKind]
    FAULT_KIND_MALFORMED_MESSAGE: _ClassVar[FaultKind]
    FAULT_KIND_DISCONNECT: _ClassVar[FaultKind]
    FAULT_KIND_CRASH: _ClassVar[FaultKind]
    FAULT_KIND_STALL: _ClassVar[FaultKind]
REQUEST_KIND_UNSPECIFIED: RequestKind
REQUEST_KIND_TURN: RequestKind
REQUEST_KIND_CALZA_OFFER: RequestKind
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_BID: ActionKind
ACTION_KIND_DUDO: ActionKind
ACTION_KIND_CALZA: ActionKind
ACTION_KIND_PASS: ActionKind
OPENER_UNSPECIFIED: Opener
OPENER_ROLLOFF: Opener
OPENER_SEAT0: Opener
CALZA_RULE_UNSPECIFIED: CalzaRule
CALZA_RULE_OFF: CalzaRule
CALZA_RULE_TURN: CalzaRule
CALZA_RULE_ANY: CalzaRule
FAULT_PENALTY_UNSPECIFIED: FaultPenalty
FAULT_PENALTY_ELIMINATE: FaultPenalty
FAULT_PENALTY_LOSE_DIE: FaultPenalty
PALIFICO_FACE_CHANGE_UNSPECIFIED: PalificoFaceChange
PALIFICO_FACE_CHANGE_NONE: PalificoFaceChange
PALIFICO_FACE_CHANGE_OTHERS: PalificoFaceChange
PALIFICO_FACE_CHANGE_ALL: PalificoFaceChange
SIDE_UNSPECIFIED: Side
SIDE_LEFT: Side
SIDE_RIGHT: Side
ROUND_END_UNSPECIFIED: RoundEnd
ROUND_END_DUDO: RoundEnd
ROUND_END_CALZA: RoundEnd
ROUND_END_FAULT: RoundEnd
FAULT_KIND_UNSPECIFIED: FaultKind
FAULT_KIND_TIMEOUT: FaultKind
FAULT_KIND_ILLEGAL_ACTION: FaultKind
FAULT_KIND_MALFORMED_MESSAGE: FaultKind
FAULT_KIND_DISCONNECT: FaultKind
FAULT_KIND_CRASH: FaultKind
FAULT_KIND_STALL: FaultKind

class BotMessage(_message.Message):
    __slots__ = ("hello", "reply", "pong")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    reply: ActionReply
    pong: Pong
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., reply: _Optional[_Union[ActionReply, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "request", "game_over", "goodbye", "ping")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    GOODBYE_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    request: ActionRequest
    game_over: GameOver
    goodbye: Goodbye
    ping: Ping
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., request: _Optional[_Union[ActionRequest, _Mapping]] = ..., game_over: _Optional[_Union[GameOver, _Mapping]] = ..., goodbye: _Optional[_Union[Goodbye, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("name", "token", "protocol_version", "bot_version", "answers_ping")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_PING_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    protocol_version: int
    bot_version: str
    answers_ping: bool
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ..., protocol_version: _Optional[int] = ..., bot_version: _Optional[str] = ..., answers_ping: _Optional[bool] = ...) -> None: ...

class Ping(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class Pong(_message.Message):
    __slots__ = ("nonce",)
    NONCE_FIELD_NUMBER: _ClassVar[int]
    nonce: int
    def __init__(self, nonce: _Optional[int] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("session_id", "protocol_version", "limits")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    protocol_version: int
    limits: Limits
    def __init__(self, session_id: _Optional[str] = ..., protocol_version: _Optional[int] = ..., limits: _Optional[_Union[Limits, _Mapping]] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ("max_message_bytes", "move_time_ms")
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    max_message_bytes: int
    move_time_ms: int
    def __init__(self, max_message_bytes: _Optional[int] = ..., move_time_ms: _Optional[int] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("kind", "count", "face")
    KIND_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FACE_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    count: int
    face: int
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., count: _Optional[int] = ..., face: _Optional[int] = ...) -> None: ...

class ActionReply(_message.Message):
    __slots__ = ("request_id", "action", "reason")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    action: Action
    reason: str
    def __init__(self, request_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class Ruleset(_message.Message):
    __slots__ = ("dice_per_player", "opener", "lower_face_with_higher_count", "calza", "palifico", "palifico_once", "palifico_one_die_may_change_face", "fault_penalty", "palifico_face_change", "palifico_min_players", "open_on_pacos", "opener_after_elimination", "calza_max_dice")
    DICE_PER_PLAYER_FIELD_NUMBER: _ClassVar[int]
    OPENER_FIELD_NUMBER: _ClassVar[int]
    LOWER_FACE_WITH_HIGHER_COUNT_FIELD_NUMBER: _ClassVar[int]
    CALZA_FIELD_NUMBER: _ClassVar[int]
    PALIFICO_FIELD_NUMBER: _ClassVar[int]
    PALIFICO_ONCE_FIELD_NUMBER: _ClassVar[int]
    PALIFICO_ONE_DIE_MAY_CHANGE_FACE_FIELD_NUMBER: _ClassVar[int]
    FAULT_PENALTY_FIELD_NUMBER: _ClassVar[int]
    PALIFICO_FACE_CHANGE_FIELD_NUMBER: _ClassVar[int]
    PALIFICO_MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPEN_ON_PACOS_FIELD_NUMBER: _ClassVar[int]
    OPENER_AFTER_ELIMINATION_FIELD_NUMBER: _ClassVar[int]
    CALZA_MAX_DICE_FIELD_NUMBER: _ClassVar[int]
    dice_per_player: int
    opener: Opener
    lower_face_with_higher_count: bool
    calza: CalzaRule
    palifico: bool
    palifico_once: bool
    palifico_one_die_may_change_face: bool
    fault_penalty: FaultPenalty
    palifico_face_change: PalificoFaceChange
    palifico_min_players: int
    open_on_pacos: bool
    opener_after_elimination: Side
    calza_max_dice: int
    def __init__(self, dice_per_player: _Optional[int] = ..., opener: _Optional[_Union[Opener, str]] = ..., lower_face_with_higher_count: _Optional[bool] = ..., calza: _Optional[_Union[CalzaRule, str]] = ..., palifico: _Optional[bool] = ..., palifico_once: _Optional[bool] = ..., palifico_one_die_may_change_face: _Optional[bool] = ..., fault_penalty: _Optional[_Union[FaultPenalty, str]] = ..., palifico_face_change: _Optional[_Union[PalificoFaceChange, str]] = ..., palifico_min_players: _Optional[int] = ..., open_on_pacos: _Optional[bool] = ..., opener_after_elimination: _Optional[_Union[Side, str]] = ..., calza_max_dice: _Optional[int] = ...) -> None: ...

class Bid(_message.Message):
    __slots__ = ("seat", "count", "face")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FACE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    face: int
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ..., face: _Optional[int] = ...) -> None: ...

class Hand(_message.Message):
    __slots__ = ("dice",)
    DICE_FIELD_NUMBER: _ClassVar[int]
    dice: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, dice: _Optional[_Iterable[int]] = ...) -> None: ...

class RoundResult(_message.Message):
    __slots__ = ("round", "end", "caller_seat", "bid", "counted", "hands", "changed_seat", "dice_change", "palifico", "bids")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    CALLER_SEAT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    COUNTED_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    CHANGED_SEAT_FIELD_NUMBER: _ClassVar[int]
    DICE_CHANGE_FIELD_NUMBER: _ClassVar[int]
    PALIFICO_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    round: int
    end: RoundEnd
    caller_seat: int
    bid: Bid
    counted: int
    hands: _containers.RepeatedCompositeFieldContainer[Hand]
    changed_seat: int
    dice_change: int
    palifico: bool
    bids: _containers.RepeatedCompositeFieldContainer[Bid]
    def __init__(self, round: _Optional[int] = ..., end: _Optional[_Union[RoundEnd, str]] = ..., caller_seat: _Optional[int] = ..., bid: _Optional[_Union[Bid, _Mapping]] = ..., counted: _Optional[int] = ..., hands: _Optional[_Iterable[_Union[Hand, _Mapping]]] = ..., changed_seat: _Optional[int] = ..., dice_change: _Optional[int] = ..., palifico: _Optional[bool] = ..., bids: _Optional[_Iterable[_Union[Bid, _Mapping]]] = ...) -> None: ...

class ActionRequest(_message.Message):
    __slots__ = ("request_id", "kind", "game_id", "seat", "players", "ruleset", "round", "my_dice", "dice_counts", "bids", "palifico", "results", "time_left_ms", "min_count", "dudo_allowed", "calza_allowed", "dice_in_play", "time_control", "bank_left_ms")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    MY_DICE_FIELD_NUMBER: _ClassVar[int]
    DICE_COUNTS_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    PALIFICO_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    MIN_COUNT_FIELD_NUMBER: _ClassVar[int]
    DUDO_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    CALZA_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    DICE_IN_PLAY_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    BANK_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    kind: RequestKind
    game_id: str
    seat: int
    players: _containers.RepeatedScalarFieldContainer[str]
    ruleset: Ruleset
    round: int
    my_dice: _containers.RepeatedScalarFieldContainer[int]
    dice_counts: _containers.RepeatedScalarFieldContainer[int]
    bids: _containers.RepeatedCompositeFieldContainer[Bid]
    palifico: bool
    results: _containers.RepeatedCompositeFieldContainer[RoundResult]
    time_left_ms: int
    min_count: _containers.RepeatedScalarFieldContainer[int]
    dudo_allowed: bool
    calza_allowed: bool
    dice_in_play: int
    time_control: TimeControl
    bank_left_ms: int
    def __init__(self, request_id: _Optional[int] = ..., kind: _Optional[_Union[RequestKind, str]] = ..., game_id: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., ruleset: _Optional[_Union[Ruleset, _Mapping]] = ..., round: _Optional[int] = ..., my_dice: _Optional[_Iterable[int]] = ..., dice_counts: _Optional[_Iterable[int]] = ..., bids: _Optional[_Iterable[_Union[Bid, _Mapping]]] = ..., palifico: _Optional[bool] = ..., results: _Optional[_Iterable[_Union[RoundResult, _Mapping]]] = ..., time_left_ms: _Optional[int] = ..., min_count: _Optional[_Iterable[int]] = ..., dudo_allowed: _Optional[bool] = ..., calza_allowed: _Optional[bool] = ..., dice_in_play: _Optional[int] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., bank_left_ms: _Optional[int] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("move_time_ms", "bank_ms", "increment_ms")
    MOVE_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_MS_FIELD_NUMBER: _ClassVar[int]
    move_time_ms: int
    bank_ms: int
    increment_ms: int
    def __init__(self, move_time_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., increment_ms: _Optional[int] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("kind", "detail", "request_id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    kind: FaultKind
    detail: str
    request_id: int
    def __init__(self, kind: _Optional[_Union[FaultKind, str]] = ..., detail: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...

class GameOver(_message.Message):
    __slots__ = ("game_id", "seat", "order", "players", "results", "fault")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    order: _containers.RepeatedScalarFieldContainer[int]
    players: _containers.RepeatedScalarFieldContainer[str]
    results: _containers.RepeatedCompositeFieldContainer[RoundResult]
    fault: Fault
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., order: _Optional[_Iterable[int]] = ..., players: _Optional[_Iterable[str]] = ..., results: _Optional[_Iterable[_Union[RoundResult, _Mapping]]] = ..., fault: _Optional[_Union[Fault, _Mapping]] = ...) -> None: ...

class Goodbye(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...
