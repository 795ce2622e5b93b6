#!/usr/bin/env bash
# Install the real Codex CLI the end-to-end tests drive (tests/test_codex_cli.py): the npm
# package @openai/codex at the version in tests/codex.version, into .cache/codex/
# (git-ignored; about 400 MB, nearly all of it the native binary of the platform's
# optional package), with .cache/codex/codex linked to that binary.
# The package's own bin/codex.js only finds the native binary and starts it; the tests
# start the binary directly, so node is needed to install, not to run.
# Idempotent, and where npm or the registry is unreachable the reason goes to
# .cache/codex/unavailable: see scripts/npm-cli.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-cli.sh
. scripts/npm-cli.sh
npm_cli_init codex @openai/codex codex "Codex CLI tests"

# `codex --version` prints "codex-cli <version>".
runs() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "^codex-cli $version\b"; }
link_installed() {
    # The platform package npm picked (linux-x64, linux-arm64, darwin-...): vendor/<target>/bin.
    link_first_that_runs "$dir"/node_modules/@openai/codex-*/vendor/*/bin/codex
    runs "$link" || unavailable "$package@$version has no native binary that runs on $(uname -sm)"
}

npm_cli_install
