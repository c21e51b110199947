#!/usr/bin/env bash
# Stores ffmpeg's decode of the encoder's reference streams in ffmpeg.json (Debian: apt-get
# install ffmpeg): the stream's SHA-256, the warnings ffmpeg printed while decoding it (none
# expected), the samples it decoded per channel (delay and padding cut by the Info frame), and
# ebur128's integrated loudness and true peak of the stream and of the input. CI has no ffmpeg:
# TestMatchesFFmpeg re-encodes the same input and holds the bytes and figures to this file.
#
#   fakeserver/internal/mp3enc/testdata/gen.sh
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd .. && go test -count=1 -run '^TestMatchesFFmpeg$' . -args -write-streams "$tmp")
ebur() { # file -> "I TP", to three decimals: the per-frame metadata, not the rounded summary
  rm -f "$tmp/meta.txt"
  ffmpeg -nostats -hide_banner -i "$1" \
    -af "ebur128=peak=true:framelog=verbose:metadata=1,ametadata=print:file=$tmp/meta.txt" -f null - 2>/dev/null
  local i tp
  i=$(grep '^lavfi.r128.I=' "$tmp/meta.txt" | tail -n1 | cut -d= -f2)
  tp=$(grep '^lavfi.r128.true_peak=' "$tmp/meta.txt" | tail -n1 | cut -d= -f2)
  awk -v i="$i" -v tp="$tp" 'BEGIN { printf "%s %.3f\n", i, 20*log(tp)/log(10) }'
}
{
  echo "{"
  first=1
  for f in "$tmp"/*.mp3; do
    name=$(basename "$f" .mp3)
    ch=$(ffprobe -v error -select_streams a:0 -show_entries stream=channels -of csv=p=0 "$f")
    warnings=$(ffmpeg -v warning -nostats -i "$f" -f null - 2>&1 | tr '\n' ' ' | sed 's/"/\\"/g; s/ *$//')
    samples=$(( $(ffmpeg -v error -i "$f" -f f32le - | wc -c) / 4 / ch ))
    read -r i tp < <(ebur "$f")
    read -r ii itp < <(ebur "$tmp/$name.wav")
    sum=$(sha256sum "$f" | cut -d' ' -f1)
    [ $first = 1 ] || echo ","
    first=0
    printf '  "%s": {"sha256": "%s", "warnings": "%s", "samples": %d, "i": %s, "tp": %s, "input_i": %s, "input_tp": %s}' \
      "$name" "$sum" "$warnings" "$samples" "$i" "$tp" "$ii" "$itp"
  done
  echo
  echo "}"
} > ffmpeg.json
cat ffmpeg.json
