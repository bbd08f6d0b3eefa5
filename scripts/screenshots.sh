#!/usr/bin/env bash
# Regenerates the README's screenshots of the three pages goodput writes:
# a run report, a sweep report and a comparison, all from the built-in
# simulator, photographed by headless Chromium.
#
#   bash scripts/screenshots.sh            # writes docs/images/*.png
#
# Needs Go and Chromium (apt-get install chromium fonts-liberation, or set
# GOODPUT_CHROMIUM). It takes about two minutes: the run and the
# comparison are benchmarks over HTTP in real time; the sweep runs in
# virtual time.
set -euo pipefail
cd "$(dirname "$0")/.."

chromium=${GOODPUT_CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$chromium" ]; then
  echo "screenshots: no Chromium found: install chromium or set GOODPUT_CHROMIUM" >&2
  exit 1
fi
out=$PWD/docs/images
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

go build -o "$work/goodput" ./cmd/goodput
gp="$work/goodput"
# The pages name their files as given: relative names read better.
cd "$work"

echo "== a run on the simulated H100, and the same load on an A100"
common=(--max-concurrency 16 --num-prompts 300 --seed 1 --random-input-len 1024 --random-output-len 128 --save-result --quiet)
"$gp" bench "${common[@]}" --result-dir runs --run-name h100 2> /dev/null > /dev/null
"$gp" bench "${common[@]}" --sim-gpu A100 --result-dir runs --run-name a100 2> /dev/null > /dev/null
"$gp" report runs/h100.jsonl -o run.html > /dev/null
"$gp" compare runs/h100.jsonl runs/a100.jsonl -o compare.html --gate 'regression(p99 ttft) <= 10%' > /dev/null || true

echo "== a sweep in virtual time"
"$gp" sweep --virtual --concurrency auto --num-prompts 800 --random-input-len 512 --random-output-len 256 \
  --ignore-eos --result-dir h100 --quiet > /dev/null 2>&1
"$gp" report h100 -o sweep.html > /dev/null

# shoot PAGE HEIGHT: the top HEIGHT pixels of a page 1280 pixels wide.
shoot() {
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --hide-scrollbars --window-size="1280,$2" \
    --screenshot="$out/$1.png" "file://$work/$1.html" > /dev/null 2>&1
  echo "wrote $out/$1.png"
}
shoot run 2100
shoot sweep 1500
shoot compare 1450
