#!/usr/bin/env bash
# Install the bundled harnesses of docs/harnesses.md under DIR and probe each with every bundled
# scenario; write their results, pages and the harness-by-check matrix under DIR/reports.
#
#   tools/probe_all.sh DIR                  install what is missing, probe them all
#   tools/probe_all.sh DIR codex aider      only these
#   tools/probe_all.sh --jobs 2 DIR         two probes at a time, each in its own home and port
#   UPDATE_DOCS=1 tools/probe_all.sh DIR    also put the matrix into docs/harnesses.md
#   INSTALL_ONLY=1 / SKIP_INSTALL=1         one half of the work
#   PRICES=tools/matrix-prices.json         the price table of docs/harnesses.md's matrix
#   SCENARIOS="basic compact"               only these scenarios
#   COMPARE=OLD/reports tools/probe_all.sh DIR   and compare every verdict with an earlier pass's
#                                           (`ctxconf probe --matrix … --compare OLD/reports/matrix.json`
#                                           marks what changed in the matrix itself)
#
# Needs npm (any Node; Node 22 comes from the npm registry's `node` package), python3 -m venv,
# and, for the clock scenarios, libfaketime (Debian: apt-get install faketime). Takes minutes
# and some gigabytes; keep DIR outside the repository.
set -uo pipefail

jobs=1
if [ "${1:-}" = --jobs ]; then
    jobs="${2:-}"
    shift 2 || true
    case "$jobs" in ''|*[!0-9]*|0) echo "probe_all: --jobs takes a number of at least 1" >&2; exit 2 ;; esac
fi
if [ $# -lt 1 ]; then
    echo "usage: tools/probe_all.sh [--jobs N] DIR [HARNESS...]" >&2
    exit 2
fi
dir="$(realpath -m "$1")"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
ctxconf="${CTXCONF:-$root/.venv/bin/ctxconf}"
all=(pi codex gemini-cli claude-code claude-code-per-turn qwen-code qwen-code-per-turn opencode
     gptme mini-swe-agent aider copilot kilo continue-cli grok-cli cline droid hermes-agent llm
     open-interpreter openhands)
[ $# -gt 0 ] && harnesses=("$@") || harnesses=("${all[@]}")
scenarios=(basic two-days midnight crash-mid-call instructions-edited mcp-late plan-mode model-switch compact long-session idle)
[ -n "${SCENARIOS:-}" ] && read -ra scenarios <<< "$SCENARIOS"  # SCENARIOS="basic compact": only these

case "$dir/" in "$root"/*) echo "probe_all: DIR must be outside the repository" >&2; exit 2 ;; esac
mkdir -p "$dir/bin" "$dir/reports" "$dir/install-home"
# Installers write into HOME (opencode's postinstall fills ~/.config, ~/.cache, ~/.local).
export HOME="$dir/install-home" npm_config_cache="$dir/npm-cache" npm_config_update_notifier=false

declare -A npm_package=(
    [pi]=@mariozechner/pi-coding-agent [codex]=@openai/codex [gemini-cli]=@google/gemini-cli
    [claude-code]=@anthropic-ai/claude-code [qwen-code]=@qwen-code/qwen-code [opencode]=opencode-ai
    [copilot]=@github/copilot [continue-cli]=@continuedev/cli [grok-cli]=@vibe-kit/grok-cli
    [cline]=cline [droid]=droid
    # 7.8.1 does not install (a dependency of it is not in the registry).
    [kilo]=@kilocode/cli@7.7.7
)
declare -A pypi_package=(
    [gptme]=gptme [mini-swe-agent]=mini-swe-agent [aider]=aider-chat [hermes-agent]="hermes-agent[mcp]"
    [llm]=llm [open-interpreter]=open-interpreter [openhands]=openhands
)
# A harness that needs a newer Python than python3: the interpreter its venv is made with.
# PYTHON_FOR_NAME overrides it (PYTHON_FOR_OPENHANDS=/opt/python3.13/usr/bin/python3.13, with
# PIP_IGNORE_REQUIRES_PYTHON=1 for a Python other than the one the package declares).
declare -A python_for=([openhands]=python3.12)
# Profiles that drive an installed harness another way share its install.
declare -A same_install=([claude-code-per-turn]=claude-code [qwen-code-per-turn]=qwen-code)
# Only each harness's own command goes into DIR/bin, which comes first on the harness's PATH.
declare -A executable=(
    [pi]=pi [codex]=codex [gemini-cli]=gemini [claude-code]=claude [qwen-code]=qwen
    [opencode]=opencode [gptme]=gptme [mini-swe-agent]=mini [aider]=aider [copilot]=copilot
    [kilo]=kilo [continue-cli]=cn [grok-cli]=grok [cline]=cline [droid]=droid
    [hermes-agent]=hermes [llm]=llm [open-interpreter]=interpreter [openhands]=openhands
)

python_of() {
    local name="$1" wanted="${python_for[$1]:-python3}"
    local override="PYTHON_FOR_$(echo "$name" | tr 'a-z-' 'A-Z_')"
    [ -n "${!override:-}" ] && wanted="${!override}"
    command -v "$wanted" || { echo "probe_all: $name needs $wanted, which is not on PATH" >&2; return 1; }
}

make_venv() {
    "$1" -m venv "$2" && return 0
    # A Python without ensurepip (Debian's, unpacked by hand): the venv without pip, then pip
    # from its own wheel.
    rm -rf "$2"
    "$1" -m venv --without-pip "$2" || return 1
    python3 -m pip download -q --no-deps -d "$2/pip-wheel" pip || return 1
    local wheel
    wheel="$(ls "$2"/pip-wheel/pip-*.whl | head -n 1)"
    "$2/bin/python" "$wheel/pip" install -q "$wheel"
}

install() {
    local name="${same_install[$1]:-$1}"
    if [ -n "${npm_package[$name]:-}" ]; then
        if [ ! -x "$dir/node22/node_modules/.bin/node" ]; then
            npm install --no-fund --no-audit --prefix "$dir/node22" node@22 || return 1
        fi
        # npm picks versions by the engines of the Node that runs it: Node 22 gets the newest.
        PATH="$dir/node22/node_modules/.bin:$PATH" \
            npm install --no-fund --no-audit --prefix "$dir/npm/$name" "${npm_package[$name]}" || return 1
        ln -sf "$dir/npm/$name/node_modules/.bin/${executable[$name]}" "$dir/bin/"
    else
        local python
        python="$(python_of "$name")" || return 1
        [ -x "$dir/venv/$name/bin/python" ] || make_venv "$python" "$dir/venv/$name" || return 1
        "$dir/venv/$name/bin/pip" install -q "${pypi_package[$name]}" || return 1
        ln -sf "$dir/venv/$name/bin/${executable[$name]}" "$dir/bin/"
    fi
}

installed() {
    [ -e "$dir/bin/${executable[${same_install[$1]:-$1}]}" ]
}

if [ "${SKIP_INSTALL:-}" != 1 ]; then
    for name in "${harnesses[@]}"; do
        installed "$name" && continue
        echo "== install $name" >&2
        install "$name" > "$dir/reports/install-$name.log" 2>&1 || echo "   failed: see $dir/reports/install-$name.log" >&2
    done
fi

[ "${INSTALL_ONLY:-}" = 1 ] && exit 0

# Each harness with each scenario, in a `ctxconf probe` process of its own (its own mock, port,
# home and folder), $jobs at a time; each pair writes DIR/reports/HARNESS-SCENARIO.{json,html,txt}.
probe_args=()
for name in "${harnesses[@]}"; do probe_args+=(--harness "$name"); done
for scenario in "${scenarios[@]}"; do probe_args+=(--scenario "$scenario"); done
started=$(date +%s)
# PRICES=FILE: a price table over the bundled list prices (docs/harnesses.md's matrix uses
# tools/matrix-prices.json, which prices the mock's model as each provider's named one).
[ -n "${PRICES:-}" ] && probe_args+=(--prices "$(realpath "$PRICES")")
"$ctxconf" probe "${probe_args[@]}" --jobs "$jobs" --out "$dir/reports" \
    --bin "$dir/bin" --bin "$dir/node22/node_modules/.bin" >&2
echo "   probed ${#harnesses[@]} harnesses x ${#scenarios[@]} scenarios with $jobs jobs in $(( $(date +%s) - started )) s" >&2
results=()
for name in "${harnesses[@]}"; do
    for scenario in "${scenarios[@]}"; do
        [ -f "$dir/reports/$name-$scenario.json" ] && results+=("$dir/reports/$name-$scenario.json")
    done
done

[ ${#results[@]} -gt 0 ] || { echo "probe_all: no results" >&2; exit 1; }
"$ctxconf" probe --matrix "${results[@]}" --html "$dir/reports/matrix.html" \
    --markdown "$dir/reports/matrix.md" --json "$dir/reports/matrix.json"
echo "matrix: $dir/reports/matrix.md, matrix.html and matrix.json" >&2
compared=0
if [ -n "${COMPARE:-}" ]; then
    # The same harness and scenario in both passes, check by check: a verdict that moved between
    # two runs of the same code is a verdict that does not hold.
    "$root/.venv/bin/python" - "$COMPARE" "${results[@]}" <<'PY' || compared=1
import json
import sys
from pathlib import Path

old_dir, new_files = Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
same = moved = 0
for new_file in new_files:
    old_file = old_dir / new_file.name
    if not old_file.is_file():
        print(f"compare: {new_file.name}: not in {old_dir}")
        moved += 1
        continue
    old = {c["id"]: c["verdict"] for c in json.loads(old_file.read_text())["checks"]}
    for check in json.loads(new_file.read_text())["checks"]:
        if old.get(check["id"]) == check["verdict"]:
            same += 1
        else:
            moved += 1
            was = old.get(check["id"])
            print(f"compare: {new_file.stem} {check['id']}: {was} -> {check['verdict']}")
print(f"compare: {same} verdicts the same, {moved} different, {len(new_files)} results files")
sys.exit(1 if moved else 0)
PY
fi
if [ "${UPDATE_DOCS:-}" = 1 ]; then
    "$root/.venv/bin/python" - "$root/docs/harnesses.md" "$dir/reports/matrix.md" <<'PY'
import sys
from pathlib import Path

from ctxconf.userfiles.atomic import write_text_atomic

doc, matrix = Path(sys.argv[1]), Path(sys.argv[2]).read_text(encoding="utf-8")
start, end = "<!-- matrix:start -->", "<!-- matrix:end -->"
text = doc.read_text(encoding="utf-8")
head, _, rest = text.partition(start)
_, _, tail = rest.partition(end)
write_text_atomic(doc, f"{head}{start}\n{matrix}{end}{tail}")
PY
    echo "docs/harnesses.md updated" >&2
fi
exit "$compared"
