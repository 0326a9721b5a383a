"""The referee: sessions, their pool, admission, the match runner, the gRPC server."""
