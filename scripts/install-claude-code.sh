#!/usr/bin/env bash
# Install the real Claude Code CLI the end-to-end tests drive (tests/test_claude_code.py):
# the npm package @anthropic-ai/claude-code at the version in tests/claude-code.version,
# into .cache/claude-code/ (git-ignored; about 400 MB, mostly the native binary of its
# platform package, and a few seconds on a good connection).
# Idempotent: nothing happens when that version is already installed and runs.
# Where npm or the registry is unreachable, the reason goes to .cache/claude-code/unavailable
# and the script exits 0, so lint, types and the other tests still run: the Claude Code
# tests then skip with that reason, or fail under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(tr -d '[:space:]' < tests/claude-code.version)"
dir=.cache/claude-code
bin="$dir/node_modules/.bin/claude"
mkdir -p "$dir"

installed() { [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$version\b"; }
unavailable() {
    echo "install-claude-code: $1; the Claude Code tests will skip (fail under CI=true)" >&2
    printf '%s\n' "$1" > "$dir/unavailable"
    exit 0
}

if installed; then
    rm -f "$dir/unavailable"
    exit 0
fi
command -v npm >/dev/null 2>&1 || unavailable "npm is not installed"
echo "install-claude-code: installing @anthropic-ai/claude-code@$version into $dir"
start=$(date +%s)
if ! output="$(npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=10000 \
        "@anthropic-ai/claude-code@$version" 2>&1)"; then
    # npm's first error lines name the cause (code, then the message); the rest is a stack.
    why="$(printf '%s\n' "$output" | grep -E '^npm error (code|[A-Za-z]*Error|404)' | head -n 2 | tr '\n' ' ')"
    unavailable "npm install @anthropic-ai/claude-code@$version failed: ${why:-$(printf '%s' "$output" | tail -n 1)}"
fi
installed || unavailable "@anthropic-ai/claude-code@$version installed, but $bin does not run"
rm -f "$dir/unavailable"
echo "install-claude-code: installed in $(( $(date +%s) - start ))s"
