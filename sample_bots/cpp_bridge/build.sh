#!/bin/sh
# Builds bin/bot from src/ with the C++17 compiler alone: no library beyond the standard one
# (the JSON reader is src/json.hpp). bin/ is build output, never committed or submitted.
set -eu
cd "$(dirname "$0")"
mkdir -p bin
g++ -std=c++17 -O2 -Wall -Wextra -Werror -o bin/bot src/main.cpp src/json.cpp src/strategy.cpp
