#!/usr/bin/env bash
# Chromium's time to load and paint 128x128 pictures (layout --svg / --html), next to a blank page
# in the same run: the difference is the picture's cost. Best of 5 headless screenshots each.
# Usage: scripts/render_time.sh [path/to/layout]   (default target/debug/layout; build it first)
set -euo pipefail
bin=${1:-target/debug/layout}
dir=$(mktemp -d)
mma='#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>'
blk='#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>'
swz='#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>'
t='tensor<128x128xf16>'
echo '<!DOCTYPE html><html><body></body></html>' > "$dir/blank.html"
"$bin" -l "$mma" -t "$t" --svg -o "$dir/mma.svg"
"$bin" -l "$swz" -t "$t" --svg -o "$dir/shared.svg"
"$bin" -l "$mma" -t "$t" --html -o "$dir/mma.html"
"$bin" -l "$mma" --to "$blk" -t "$t" --html -o "$dir/convert.html"
best() {
  local b=999999
  for _ in 1 2 3 4 5; do
    local s=$(date +%s%N)
    chromium --headless --no-sandbox --disable-gpu --window-size=1600,1000 --screenshot="$dir/x.png" "file://$1" >/dev/null 2>&1
    local ms=$(( ($(date +%s%N) - s) / 1000000 ))
    (( ms < b )) && b=$ms
  done
  echo $b
}
base=$(best "$dir/blank.html")
echo "| page | bytes | ms (best of 5) | ms over a blank page |"
echo "|---|---|---|---|"
echo "| blank page | - | $base | 0 |"
for f in mma.svg shared.svg mma.html convert.html; do
  ms=$(best "$dir/$f")
  echo "| 128x128 $f | $(stat -c %s "$dir/$f") | $ms | $((ms - base)) |"
done
rm -rf "$dir"
