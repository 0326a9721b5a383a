#!/bin/sh
# Builds bin/bot from bot.c with the system's C compiler; bin/ is build output.
set -eu
cd "$(dirname "$0")"
mkdir -p bin
cc -std=c99 -O2 -Wall -Wextra -o bin/bot bot.c
