#!/usr/bin/env bash
# GraphQL introspection that every client accepts: builds the fake program, starts it on
# loopback, and has graphql-js (buildClientSchema, pinned in package-lock.json) and graphql-core
# 3.2 (build_client_schema, the Python gql client's engine) each build a client schema from its
# introspection answer and print it equal to schema.graphql modulo ordering.
# usage: bash .ci/introspection/run.sh   (from anywhere in the repository)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

(cd "$here" && npm ci --no-audit --no-fund --silent)
python3 -c 'import graphql, sys; v = graphql.__version__; print("graphql-core", v); sys.exit(0 if v.startswith("3.2.") else "graphql-core 3.2 is required, found " + v)'

bin="$here/fakeserver.bin"
go build -o "$bin" ./fakeserver/cmd/fakeserver
out=$(mktemp)
"$bin" -addr 127.0.0.1:0 -log-level warn >"$out" &
fake=$!
trap 'kill "$fake" 2>/dev/null; wait "$fake" 2>/dev/null; rm -f "$out" "$bin"' EXIT

# The program prints one JSON line with its base URL once it listens.
for _ in $(seq 300); do
  [ -s "$out" ] && break
  kill -0 "$fake" 2>/dev/null || { echo "fakeserver exited before it printed its start line"; exit 1; }
  sleep 0.1
done
base=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["base_url"])' "$out")

node "$here/check.mjs" "$base/api/graphql" schema.graphql
python3 "$here/check.py" "$base/api/graphql" schema.graphql
