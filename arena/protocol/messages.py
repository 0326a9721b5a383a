"""The wire's messages and services: the one door to the generated code for every other part.

The generated modules (`_proto/`, from `proto/` by `arena.protocol.protogen`)
are an implementation detail of this package: regenerated, renamed or moved,
only this module changes with them. Everything else imports the messages
from here (`from arena.protocol.messages import referee as pb`), and a test
fails on any other import of `_proto`.
"""

from arena.protocol._proto.perudo.v1 import admin_pb2 as admin
from arena.protocol._proto.perudo.v1 import admin_pb2_grpc as admin_grpc
from arena.protocol._proto.perudo.v1 import referee_pb2 as referee
from arena.protocol._proto.perudo.v1 import referee_pb2_grpc as referee_grpc
from arena.protocol._proto.perudo.v1 import submission_pb2 as submission
from arena.protocol._proto.perudo.v1 import submission_pb2_grpc as submission_grpc

__all__ = ["admin", "admin_grpc", "referee", "referee_grpc", "submission", "submission_grpc"]
