#!/usr/bin/env bash
# Unpack Debian trixie's Python 3.13, with the C library and the libraries it was built with,
# into DIR, for a harness that needs a newer Python than the machine's (OpenHands). Debian's
# archive is the only source: apt runs with a state of its own under DIR, so the machine's
# packages are not touched; patchelf (apt-get install patchelf) points the interpreter at the
# unpacked loader and libraries.
#
#   tools/debian_python.sh DIR       then DIR/usr/bin/python3.13
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/debian_python.sh DIR" >&2; exit 2; }
dir="$(realpath -m "$1")"
apt_dir="$dir.apt"
mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$dir"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
    > "$apt_dir/sources.list"
: > "$apt_dir/state/status"
options=(
    -o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::State=$apt_dir/state" -o "Dir::State::status=$apt_dir/state/status"
    -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1
)
apt-get "${options[@]}" update -qq
apt-get "${options[@]}" install -y -qq --download-only --no-install-recommends python3.13 python3.13-venv
for deb in "$apt_dir"/cache/archives/*.deb; do dpkg -x "$deb" "$dir"; done
lib="$dir/usr/lib/x86_64-linux-gnu"
patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$lib" "$dir/usr/bin/python3.13"
"$dir/usr/bin/python3.13" -c "import ssl, sqlite3, sys; print(sys.version.split()[0], sys.prefix)"
