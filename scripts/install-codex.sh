#!/usr/bin/env bash
# Install the real Codex CLI the end-to-end tests drive (tests/test_codex_cli.py): the npm
# package @openai/codex at the version in tests/codex.version, into .cache/codex/
# (git-ignored; about 400 MB, nearly all of it the native binary of the platform's
# optional package), with .cache/codex/codex linked to that binary.
# The package's own bin/codex.js only finds the native binary and starts it; the tests
# start the binary directly, so node is needed to install, not to run.
# Idempotent: nothing happens when that version is already installed and runs.
# Where npm or the registry is unreachable, the reason goes to .cache/codex/unavailable and
# the script exits 0, so lint, types and the other tests still run: the Codex tests then
# skip with that reason, or fail under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(tr -d '[:space:]' < tests/codex.version)"
dir=.cache/codex
link="$dir/codex"
mkdir -p "$dir"

# `codex --version` prints "codex-cli <version>".
runs() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "^codex-cli $version\b"; }
unavailable() {
    echo "install-codex: $1; the Codex CLI tests will skip (fail under CI=true)" >&2
    printf '%s\n' "$1" > "$dir/unavailable"
    exit 0
}

if runs "$link"; then
    rm -f "$dir/unavailable"
    exit 0
fi
command -v npm >/dev/null 2>&1 || unavailable "npm is not installed"
echo "install-codex: installing @openai/codex@$version into $dir"
start=$(date +%s)
if ! output="$(npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts \
        --loglevel=error --fetch-retries=1 --fetch-retry-mintimeout=2000 \
        --fetch-retry-maxtimeout=10000 "@openai/codex@$version" 2>&1)"; then
    # npm's first error lines name the cause (code, then the message); the rest is a stack.
    why="$(printf '%s\n' "$output" | grep -E '^npm error (code|[A-Za-z]*Error|404)' | head -n 2 | tr '\n' ' ')"
    unavailable "npm install @openai/codex@$version failed: ${why:-$(printf '%s' "$output" | tail -n 1)}"
fi
# The platform package npm picked (linux-x64, linux-arm64, darwin-...): vendor/<target>/bin.
for native in "$dir"/node_modules/@openai/codex-*/vendor/*/bin/codex; do
    if runs "$native"; then
        ln -sfn "${native#"$dir"/}" "$link"  # relative: the checkout may move
        break
    fi
done
runs "$link" || unavailable "@openai/codex@$version has no native binary that runs on $(uname -sm)"
rm -f "$dir/unavailable"
echo "install-codex: installed in $(( $(date +%s) - start ))s"
