#!/bin/sh
# Build the protoc plugins pinned in go.mod, generate the stubs, build bin/bot.
set -eu
cd "$(dirname "$0")"
export GOFLAGS="${GOFLAGS:-} -mod=mod"
MODULE=perudobot                      # the module line of go.mod
PROTO=perudo/v1/referee.proto         # under ./proto, copied from the arena

mkdir -p bin
go build -o bin/protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go
go build -o bin/protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc
rm -rf perudov1
python -m grpc_tools.protoc -Iproto \
	--plugin=protoc-gen-go=./bin/protoc-gen-go \
	--plugin=protoc-gen-go-grpc=./bin/protoc-gen-go-grpc \
	--go_out=. --go_opt=module=$MODULE --go_opt=M$PROTO=$MODULE/perudov1 \
	--go-grpc_out=. --go-grpc_opt=module=$MODULE --go-grpc_opt=M$PROTO=$MODULE/perudov1 \
	$PROTO
go build -o bin/bot .
