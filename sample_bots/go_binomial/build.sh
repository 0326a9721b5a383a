#!/bin/sh
# Builds the go-binomial bot from scratch: the protoc plugins pinned in
# go.mod, the Go stubs generated from proto/ (a copy of the arena's, so that
# this folder builds wherever it is), then the bot itself.
# Needs Go and a Python with grpc_tools (which ships protoc) first on PATH.
set -eu
cd "$(dirname "$0")"

export GOFLAGS="${GOFLAGS:-} -mod=mod"
# The arena puts its virtualenv (which has grpc_tools) first on PATH.
if [ -z "${PYTHON:-}" ]; then
	if command -v python >/dev/null 2>&1; then PYTHON=python; else PYTHON=python3; fi
fi
MODULE=gobinomial
PROTO=perudo/v1/referee.proto

mkdir -p bin
go build -o bin/protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go
go build -o bin/protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc

rm -rf perudov1
"$PYTHON" -m grpc_tools.protoc -Iproto \
	--plugin=protoc-gen-go=./bin/protoc-gen-go \
	--plugin=protoc-gen-go-grpc=./bin/protoc-gen-go-grpc \
	--go_out=. --go_opt=module=$MODULE --go_opt=M$PROTO=$MODULE/perudov1 \
	--go-grpc_out=. --go-grpc_opt=module=$MODULE --go-grpc_opt=M$PROTO=$MODULE/perudov1 \
	$PROTO

go build -o bin/bot .
