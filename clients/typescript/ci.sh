#!/usr/bin/env bash
# Build and test the TypeScript client: what CI runs (tests/clients/test_typescript_client.py).
# MANHATTAN_URL, when set, points the live tests at a running service.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npm run build
npm run check-generated
npm test
