#!/usr/bin/env bash
# A strict OpenAPI 3.0.3 validating proxy: builds the fake program and runs every REST operation
# of openapi.json through Stoplight Prism (pinned in package-lock.json) as `prism proxy
# openapi.json <fake> --errors` (see run.mjs); any violation of a request or an answer fails.
# usage: bash .ci/prism/run.sh   (from anywhere in the repository)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

(cd "$here" && npm ci --no-audit --no-fund --silent)
bin="$here/fakeserver.bin"
trap 'rm -f "$bin"' EXIT
go build -o "$bin" ./fakeserver/cmd/fakeserver
node "$here/run.mjs" "$bin" "$root/openapi.json"
