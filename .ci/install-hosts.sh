#!/usr/bin/env bash
# Installs the agent CLIs the real-client tests drive (t/codex, t/gemini,
# t/opencode) into .cache/hosts (gitignored), through npm only.
# Versions are pinned: the tests script the model side of these exact
# clients. Node >= 20 is needed; without npm this prints how to get it and
# fails.
set -euo pipefail
cd "$(dirname "$0")/.."

CODEX=@openai/codex@0.171.0
GEMINI=@google/gemini-cli@0.61.0
# OpenCode and the plugin helper its plugins import (tool(), zod schemas).
OPENCODE=opencode-ai@1.18.33
OPENCODE_PLUGIN=@opencode-ai/plugin@1.18.33

if ! command -v npm >/dev/null 2>&1; then
  echo "install-hosts: npm not found: install Node.js >= 20 (with npm), then run .ci/install-hosts.sh again" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "install-hosts: node $(node --version) is too old: Gemini CLI needs node >= 20" >&2
  exit 1
fi
mkdir -p .cache/hosts
want="$CODEX $GEMINI $OPENCODE $OPENCODE_PLUGIN"
have=""
for p in $want; do
  name=${p%@*}; ver=${p##*@}
  got=$(node -p "try{require('./.cache/hosts/node_modules/$name/package.json').version}catch(e){''}" 2>/dev/null || true)
  [ "$got" = "$ver" ] || have="missing"
done
if [ -z "$have" ]; then
  echo "install-hosts: $want already in .cache/hosts"
  exit 0
fi
npm install --prefix .cache/hosts --no-audit --no-fund --no-save --loglevel=error $want
echo "install-hosts: installed $want in .cache/hosts"
