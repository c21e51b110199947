#!/usr/bin/env bash
# GraphQL over HTTP: builds the fake program and runs graphql-http's serverAudits (pinned in
# package-lock.json) against its /api/graphql; any MUST or SHOULD audit not passing fails.
# usage: bash .ci/graphql-audit/run.sh   (from anywhere in the repository)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

(cd "$here" && npm ci --no-audit --no-fund --silent)
bin="$here/fakeserver.bin"
trap 'rm -f "$bin"' EXIT
go build -o "$bin" ./fakeserver/cmd/fakeserver
node "$here/audit.mjs" "$bin"
