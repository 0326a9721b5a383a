//go:build tools

// Package tools pins the protoc plugins that build.sh compiles, so their
// versions live in go.mod and go.sum like any other dependency.
package tools

import (
	_ "google.golang.org/grpc/cmd/protoc-gen-go-grpc"
	_ "google.golang.org/protobuf/cmd/protoc-gen-go"
)
