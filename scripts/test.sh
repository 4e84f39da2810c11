#!/usr/bin/env bash
# The whole test suite. PostgreSQL and Redis are used where DATABASE_URL /
# REDIS_URL point, or where they answer on localhost; without them the tests
# that need them skip, each saying why (or fail, with INKSTONE_REQUIRE_SERVICES=1).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python

answers() { # host port
  "$PY" - "$1" "$2" <<'PYEOF'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
except OSError:
    sys.exit(1)
PYEOF
}

if [ -z "${DATABASE_URL:-}" ] && answers 127.0.0.1 5432; then
  export DATABASE_URL="postgres://postgres@127.0.0.1:5432/test"
fi
if [ -z "${REDIS_URL:-}" ] && answers 127.0.0.1 6379; then
  export REDIS_URL="redis://127.0.0.1:6379/15"
fi

db="SQLite (embedded)"; [ -n "${DATABASE_URL:-}" ] && db="$DATABASE_URL"
broker="filesystem (embedded)"; [ -n "${REDIS_URL:-}" ] && broker="Redis at $REDIS_URL"
echo "== suite 1: database $db, broker $broker"
"$PY" -m pytest "$@"

# The embedded defaults get their own run: the worker and offline tests must
# also pass on SQLite with the filesystem broker, as a new user runs them.
echo "== suite 2: embedded defaults (SQLite, filesystem broker)"
env -u DATABASE_URL -u REDIS_URL INKSTONE_EMBEDDED_RUN=1 "$PY" -m pytest -m embedded "$@"
