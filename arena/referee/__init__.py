"""The referee: sessions, their lobby, admission, the match runner, the gRPC server."""
