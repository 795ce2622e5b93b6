#!/usr/bin/env bash
# Install the real Claude Code CLI the end-to-end tests drive (tests/test_claude_code.py):
# the npm package @anthropic-ai/claude-code at the version in tests/claude-code.version,
# into .cache/claude-code/ (git-ignored; about 400 MB, nearly all of it the native binary
# of the platform's optional package; a few seconds on a good connection), with
# .cache/claude-code/claude linked to that binary.
# The package's postinstall only copies the native binary over its placeholder; it is
# skipped (--ignore-scripts) and the binary linked directly, so no install script runs
# and the node version does not matter.
# Idempotent, and where npm or the registry is unreachable the reason goes to
# .cache/claude-code/unavailable: see scripts/npm-cli.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-cli.sh
. scripts/npm-cli.sh
npm_cli_init claude-code @anthropic-ai/claude-code claude "Claude Code tests"

runs() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "^$version\b"; }
link_installed() {
    # The platform package npm picked (linux-x64, linux-arm64, a -musl one, darwin-...).
    link_first_that_runs "$dir"/node_modules/@anthropic-ai/claude-code-*/claude
    runs "$link" || unavailable "$package@$version has no native binary that runs on $(uname -sm)"
}

npm_cli_install
