#!/bin/bash
# Builds the question sets (BEIR format) from Debian documentation packages:
#   python-faq       the Python FAQ's questions over their answers and 1,300 other sections of the docs
#   python-api       identifiers (`shutil.copyfile`, `removeprefix`) over the library reference's entries
#   gnome-questions  GNOME help pages whose titles are questions (titles removed from every page)
#   gnome-questions-ru  the same pages in their Russian translation
#   gnome-questions-LOCALE  the same in 12 more translations (de fr it es zh_CN ja pt_BR pl nl sv uk ko);
#                       a question the locale left in English is left out
#   gnome-help-desc-LOCALE  page descriptions over the help in 30 languages ../shared/eval-data lacks
#                       (the shared sets' recipe; baselines: scripts/bm25_baseline.py)
#   lo-help-index-km  Khmer index terms of LibreOffice Help over its pages (the shared lo sets' recipe)
# Usage: scripts/question_sets/build.sh OUT_DIR   (needs apt-get download; about a minute)
# Then:  uv run python scripts/eval.py OUT_DIR/python-faq OUT_DIR/python-api OUT_DIR/gnome-questions
set -euo pipefail
OUT="$(realpath -m "${1:?usage: build.sh OUT_DIR}")"
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
apt-get download python3.11-doc gnome-user-docs libreoffice-help-km >/dev/null
mkdir pydoc gnome lokm
dpkg-deb -x python3.11-doc_*.deb pydoc
dpkg-deb -x gnome-user-docs_*.deb gnome
dpkg-deb -x libreoffice-help-km_*.deb lokm
cd "$HERE/../.."
uv run python "$HERE/python_faq.py" "$WORK/pydoc" "$OUT/python-faq"
uv run python "$HERE/python_api.py" "$WORK/pydoc" "$OUT/python-api"
uv run python "$HERE/gnome_questions.py" "$WORK/gnome" "$OUT/gnome-questions"
for locale in ru de fr it es zh_CN ja pt_BR pl nl sv uk ko; do
  uv run python "$HERE/gnome_questions.py" "$WORK/gnome" "$OUT/gnome-questions-$locale" "$locale" >/dev/null
done
for locale in fr es it pt_BR pl cs sv da nl fi hu el uk ko vi fa as gu mr ta te ca gl hr id lv pt sl sr sr@latin; do
  uv run python "$HERE/gnome_desc.py" "$WORK/gnome" "$OUT/gnome-help-desc-$locale" "$locale" >/dev/null
done
uv run python "$HERE/lo_index.py" "$WORK/lokm" "$OUT/lo-help-index-km" km >/dev/null
echo "$OUT"
