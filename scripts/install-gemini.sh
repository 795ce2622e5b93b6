#!/usr/bin/env bash
# Install the real Gemini CLI the end-to-end tests drive (tests/test_gemini_cli.py): the npm
# package @google/gemini-cli at the version in tests/gemini.version, into .cache/gemini/
# (git-ignored), with .cache/gemini/gemini linked to the package's bundled script.
# The package is one bundled JavaScript file with no dependencies: node runs it, so node
# (>= 20, as the package asks) is needed both to install and to run.
# Idempotent: nothing happens when that version is already installed and runs.
# Where npm, node or the registry is unavailable, the reason goes to .cache/gemini/unavailable
# and the script exits 0, so lint, types and the other tests still run: the Gemini tests then
# skip with that reason, or fail under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(tr -d '[:space:]' < tests/gemini.version)"
dir=.cache/gemini
link="$dir/gemini"
mkdir -p "$dir"

# `gemini --version` prints the bare version. A throwaway HOME keeps the check from
# reading (or writing) the user's own ~/.gemini.
runs() {
    [ -x "$1" ] || return 1
    local shown
    shown="$(HOME="$dir/home" "$1" --version 2>/dev/null | tail -n 1)" || return 1
    [ "$shown" = "$version" ]
}
unavailable() {
    echo "install-gemini: $1; the Gemini CLI tests will skip (fail under CI=true)" >&2
    printf '%s\n' "$1" > "$dir/unavailable"
    exit 0
}

if runs "$link"; then
    rm -f "$dir/unavailable"
    exit 0
fi
command -v npm >/dev/null 2>&1 || unavailable "npm is not installed"
command -v node >/dev/null 2>&1 || unavailable "node is not installed"
echo "install-gemini: installing @google/gemini-cli@$version into $dir"
start=$(date +%s)
if ! output="$(npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts \
        --loglevel=error --fetch-retries=1 --fetch-retry-mintimeout=2000 \
        --fetch-retry-maxtimeout=10000 "@google/gemini-cli@$version" 2>&1)"; then
    # npm's first error lines name the cause (code, then the message); the rest is a stack.
    why="$(printf '%s\n' "$output" | grep -E '^npm error (code|[A-Za-z]*Error|404)' | head -n 2 | tr '\n' ' ')"
    unavailable "npm install @google/gemini-cli@$version failed: ${why:-$(printf '%s' "$output" | tail -n 1)}"
fi
ln -sfn node_modules/.bin/gemini "$link"  # relative: the checkout may move
runs "$link" || unavailable "@google/gemini-cli@$version does not run here (node $(node --version 2>/dev/null || echo missing))"
rm -f "$dir/unavailable"
echo "install-gemini: installed in $(( $(date +%s) - start ))s"
