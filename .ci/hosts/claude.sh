#!/usr/bin/env bash
# Installs the Claude Code CLI that the t/claude scenarios run into
# .cache/hosts/claude (gitignored), through npm only. The version is pinned in
# t/claude/claude-code.version: move it forward deliberately, after running
# the scenarios against the new one. node and npm come from apt when missing
# (the package ships a native binary; node only runs its installer).
set -euo pipefail
cd "$(dirname "$0")/../.."
version="$(tr -d ' \n' < t/claude/claude-code.version)"
dir=.cache/hosts/claude
bin="$dir/node_modules/.bin/claude"
if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$version "; then
  echo "claude $version already installed in $dir"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  apt-get update && apt-get install -y --no-install-recommends nodejs npm
fi
mkdir -p "$dir"
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$version"
"$bin" --version
