#!/bin/bash
# Every man page renders with man -l and groff without a single warning.
# Usage: test_man.sh SOURCE_DIR
set -u
src=$1
fails=0
for page in "$src"/man/*.[1-9]; do
  warnings=$( { MANWIDTH=80 man --warnings -l "$page" > /dev/null; } 2>&1; groff -ww -z -man "$page" 2>&1)
  if [ -n "$warnings" ]; then
    echo "FAIL: $page"; echo "$warnings" | head -10; fails=$((fails + 1))
  else
    echo "ok: $(basename "$page") renders cleanly"
  fi
done
[ "$fails" -eq 0 ]
