#!/usr/bin/env bash
# mypy --strict over the package as it installs: ctxconf/, with reference/, runner/, probe/,
# audit/ and proxy/ in it.
# mypy cannot follow setuptools' package-dir mapping, so it checks a tree of links laid out as
# the wheel lays the package out.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/ctxconf"
for entry in "$root"/ctxconf/*; do ln -s "$entry" "$tree/ctxconf/$(basename "$entry")"; done
ln -s "$root/reference" "$tree/ctxconf/reference"
ln -s "$root/runner" "$tree/ctxconf/runner"
ln -s "$root/probe" "$tree/ctxconf/probe"
ln -s "$root/audit" "$tree/ctxconf/audit"
ln -s "$root/proxy" "$tree/ctxconf/proxy"
cd "$tree"
python -m mypy --strict --config-file "$root/pyproject.toml" -p ctxconf "$@"
