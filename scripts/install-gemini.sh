#!/usr/bin/env bash
# Install the real Gemini CLI the end-to-end tests drive (tests/test_gemini_cli.py): the npm
# package @google/gemini-cli at the version in tests/gemini.version, into .cache/gemini/
# (git-ignored), with .cache/gemini/gemini linked to the package's bundled script.
# The package is one bundled JavaScript file with no dependencies: node runs it, so node
# (>= 20, as the package asks) is needed both to install and to run.
# Idempotent, and where npm, node or the registry is unavailable the reason goes to
# .cache/gemini/unavailable: see scripts/npm-cli.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/npm-cli.sh
. scripts/npm-cli.sh
npm_cli_init gemini @google/gemini-cli gemini "Gemini CLI tests"

# `gemini --version` prints the bare version. A throwaway HOME keeps the check from
# reading (or writing) the user's own ~/.gemini.
runs() {
    [ -x "$1" ] || return 1
    local shown
    shown="$(HOME="$dir/home" "$1" --version 2>/dev/null | tail -n 1)" || return 1
    [ "$shown" = "$version" ]
}
link_installed() {
    ln -sfn node_modules/.bin/gemini "$link"  # relative: the checkout may move
    runs "$link" || unavailable "$package@$version does not run here (node $(node --version 2>/dev/null || echo missing))"
}

npm_cli_install node
