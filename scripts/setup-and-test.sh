#!/usr/bin/env bash
# The README's test command: install what is missing, then build and test the default preset (everything a
# user runs; CI adds the core-only and sanitizer presets, see .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/test-presets.sh default
