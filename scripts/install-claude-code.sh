#!/usr/bin/env bash
# Install the real Claude Code CLI the end-to-end tests drive (tests/test_claude_code.py):
# the npm package @anthropic-ai/claude-code at the version in tests/claude-code.version,
# into .cache/claude-code/ (git-ignored; about 400 MB, nearly all of it the native binary
# of the platform's optional package; a few seconds on a good connection), with
# .cache/claude-code/claude linked to that binary.
# The package's postinstall only copies the native binary over its placeholder; it is
# skipped (--ignore-scripts) and the binary linked directly, so no install script runs
# and the node version does not matter.
# Idempotent: nothing happens when that version is already installed and runs.
# Where npm or the registry is unreachable, the reason goes to .cache/claude-code/unavailable
# and the script exits 0, so lint, types and the other tests still run: the Claude Code
# tests then skip with that reason, or fail under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(tr -d '[:space:]' < tests/claude-code.version)"
dir=.cache/claude-code
link="$dir/claude"
mkdir -p "$dir"

runs() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "^$version\b"; }
unavailable() {
    echo "install-claude-code: $1; the Claude Code tests will skip (fail under CI=true)" >&2
    printf '%s\n' "$1" > "$dir/unavailable"
    exit 0
}

if runs "$link"; then
    rm -f "$dir/unavailable"
    exit 0
fi
command -v npm >/dev/null 2>&1 || unavailable "npm is not installed"
echo "install-claude-code: installing @anthropic-ai/claude-code@$version into $dir"
start=$(date +%s)
if ! output="$(npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts \
        --loglevel=error --fetch-retries=1 --fetch-retry-mintimeout=2000 \
        --fetch-retry-maxtimeout=10000 "@anthropic-ai/claude-code@$version" 2>&1)"; then
    # npm's first error lines name the cause (code, then the message); the rest is a stack.
    why="$(printf '%s\n' "$output" | grep -E '^npm error (code|[A-Za-z]*Error|404)' | head -n 2 | tr '\n' ' ')"
    unavailable "npm install @anthropic-ai/claude-code@$version failed: ${why:-$(printf '%s' "$output" | tail -n 1)}"
fi
# The platform package npm picked (linux-x64, linux-arm64, a -musl one, darwin-...).
for native in "$dir"/node_modules/@anthropic-ai/claude-code-*/claude; do
    if runs "$native"; then
        ln -sfn "${native#"$dir"/}" "$link"  # relative: the checkout may move
        break
    fi
done
runs "$link" || unavailable "@anthropic-ai/claude-code@$version has no native binary that runs on $(uname -sm)"
rm -f "$dir/unavailable"
echo "install-claude-code: installed in $(( $(date +%s) - start ))s"
