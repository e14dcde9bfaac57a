#!/usr/bin/env bash
# Installs what t/board drives the board with: Debian's chromium (apt) and
# puppeteer-core (npm, pinned, into .cache/board; it downloads no browser).
# Under CI=true a missing browser fails t/board; elsewhere it skips.
set -euo pipefail
cd "$(dirname "$0")/.."

PUPPETEER=puppeteer-core@25.16.0

if ! command -v chromium >/dev/null 2>&1; then
  (apt-get update && apt-get install -y --no-install-recommends chromium) >/dev/null 2>&1 || echo "install-board: chromium not installed: t/board fails under CI=true, skips otherwise" >&2
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-board: npm not found: install Node.js >= 20 (with npm), then run .ci/install-board.sh again" >&2
  exit 1
fi
mkdir -p .cache/board
name=${PUPPETEER%@*}; ver=${PUPPETEER##*@}
got=$(node -p "try{require('./.cache/board/node_modules/$name/package.json').version}catch(e){''}" 2>/dev/null || true)
if [ "$got" = "$ver" ]; then
  echo "install-board: $PUPPETEER already in .cache/board"
  exit 0
fi
PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix .cache/board --no-audit --no-fund --no-save --loglevel=error "$PUPPETEER"
echo "install-board: installed $PUPPETEER in .cache/board"
