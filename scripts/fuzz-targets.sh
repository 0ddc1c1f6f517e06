#!/usr/bin/env bash
# Prints package:FuzzName for every Go fuzz target in the module.
cd "$(dirname "$0")/.."
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
  pkg=./$(dirname "${f#./}")
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r n; do
    echo "$pkg:$n"
  done
done
