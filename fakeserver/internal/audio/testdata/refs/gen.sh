#!/usr/bin/env bash
# Regenerates refs.csv, the reference figures of the loudness accuracy corpus: writes every case
# of package fakeserver/internal/audio/internal/corpus as a WAV file (go run ./fakeserver/internal/audio/internal/corpusgen)
# and measures it with ffmpeg's ebur128 filter (Debian's ffmpeg: apt-get install -y ffmpeg).
#
# Integrated loudness and loudness range are the filter's metadata of the last frame (three
# decimals). The true peak is the last frame's lavfi.r128.true_peak (linear, three decimals) in dB
# when it is at least 0.1 (rounding under 0.05 dB), else the summary's "Peak" (one decimal).
# The tests only read refs.csv; they never run ffmpeg.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here" && git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v ffmpeg >/dev/null || { echo "gen.sh: ffmpeg not found (apt-get install -y ffmpeg)" >&2; exit 1; }
(cd "$root" && go run ./fakeserver/internal/audio/internal/corpusgen -out "$work/wav")

filter="ebur128=peak=true:framelog=verbose:metadata=1,ametadata=print:file=$work/meta.txt"
out="$work/refs.csv"
{
  echo "# Reference figures of the loudness accuracy corpus, written by gen.sh; do not edit."
  echo "# $(ffmpeg -version | head -n1)"
  echo "# ffmpeg -nostats -hide_banner -i CASE.wav -af ebur128=peak=true:framelog=verbose:metadata=1,ametadata=print:file=META -f null -"
  echo "name,integrated_lufs,true_peak_dbtp,loudness_range_lu"
} > "$out"

for wav in "$work"/wav/*.wav; do
  name=$(basename "$wav" .wav)
  rm -f "$work/meta.txt"
  ffmpeg -nostats -hide_banner -i "$wav" -af "$filter" -f null - 2> "$work/log.txt"
  last() { grep "^lavfi.r128.$1=" "$work/meta.txt" | tail -n1 | cut -d= -f2; }
  integrated=$(last I)
  lra=$(last LRA)
  tplin=$(last true_peak)
  tpsum=$(awk '/True peak:/ {tp=1} tp && /Peak:/ {print $2; exit}' "$work/log.txt")
  if [ -z "$integrated" ] || [ -z "$lra" ] || [ -z "$tplin" ] || [ -z "$tpsum" ]; then
    echo "gen.sh: could not read ffmpeg's figures for $name" >&2
    exit 1
  fi
  tp=$(awk -v lin="$tplin" -v sum="$tpsum" 'BEGIN { if (lin >= 0.1) printf "%.3f", 20*log(lin)/log(10); else printf "%.1f", sum }')
  echo "$name,$integrated,$tp,$lra" >> "$out"
done
cp "$out" "$here/refs.csv"
echo "wrote $here/refs.csv ($(($(wc -l < "$here/refs.csv") - 4)) cases)"
