# shellcheck shell=bash
# Sourced, not run: the steps every install-<cli>.sh script shares to install one npm CLI
# the end-to-end tests drive, at the version pinned in tests/<name>.version, into
# .cache/<name>/ (git-ignored), with .cache/<name>/<command> linked to what runs.
# The caller, from the repository root, calls npm_cli_init, then defines
#   runs PATH        whether PATH is an executable that answers --version with $version;
#   link_installed   after the npm install: point $link at what runs, or call unavailable;
# and calls npm_cli_install.
# The package is installed with --ignore-scripts: no install script runs, so the node
# version does not matter to the install.
# Idempotent: nothing happens when that version is already installed and runs.
# Where a tool or the registry is unavailable, the reason goes to .cache/<name>/unavailable
# and the script exits 0, so lint, types and the other tests still run: the tests that need
# the CLI then skip with that reason, or fail under CI=true.

# npm_cli_init NAME PACKAGE COMMAND TESTS: sets name, package, version, dir and link;
# TESTS names, for the messages, the tests that skip without the CLI.
npm_cli_init() {
    name="$1"
    package="$2"
    tests="$4"
    version="$(tr -d '[:space:]' < "tests/$name.version")"
    dir=".cache/$name"
    link="$dir/$3"
    mkdir -p "$dir"
}

# unavailable REASON: says why the CLI is missing, leaves it for the tests to read, exits 0.
unavailable() {
    echo "install-$name: $1; the $tests will skip (fail under CI=true)" >&2
    printf '%s\n' "$1" > "$dir/unavailable"
    exit 0
}

# link_first_that_runs PATH...: links $link to the first PATH that runs (the platform's
# native binary among the optional packages npm may have picked).
link_first_that_runs() {
    local native
    for native in "$@"; do
        if runs "$native"; then
            ln -sfn "${native#"$dir"/}" "$link"  # relative: the checkout may move
            return 0
        fi
    done
}

# npm_cli_install [TOOL...]: installs $package@$version unless it already runs; each TOOL,
# besides npm, must be on PATH for the install to be tried.
npm_cli_install() {
    if runs "$link"; then
        rm -f "$dir/unavailable"
        exit 0
    fi
    local tool
    for tool in npm "$@"; do
        command -v "$tool" >/dev/null 2>&1 || unavailable "$tool is not installed"
    done
    echo "install-$name: installing $package@$version into $dir"
    local start output why
    start=$(date +%s)
    if ! output="$(npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts \
            --loglevel=error --fetch-retries=1 --fetch-retry-mintimeout=2000 \
            --fetch-retry-maxtimeout=10000 "$package@$version" 2>&1)"; then
        # npm's first error lines name the cause (code, then the message); the rest is a stack.
        # `|| true`: no such line is not a failure of this script (pipefail would make it one).
        why="$(printf '%s\n' "$output" | grep -E '^npm error (code|[A-Za-z]*Error|404)' \
            | head -n 2 | tr '\n' ' ' || true)"
        unavailable "npm install $package@$version failed: ${why:-$(printf '%s' "$output" | tail -n 1)}"
    fi
    link_installed
    rm -f "$dir/unavailable"
    echo "install-$name: installed in $(( $(date +%s) - start ))s"
}
