#!/usr/bin/env bash
# Rebuilds dist/ (the fake's embedded GraphiQL bundle) from web/ with the pinned npm packages.
# CI runs it and requires the committed dist/ to come out byte for byte.
set -euo pipefail
cd "$(dirname "$0")/web"
npm ci --no-audit --no-fund --silent
node build.mjs
