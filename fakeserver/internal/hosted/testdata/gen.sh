#!/usr/bin/env bash
# Stores ffmpeg's measurement of the audio the host serves for the cases of served_test.go in
# ffmpeg.json (Debian: apt-get install ffmpeg): the file's SHA-256, the warnings ffmpeg printed
# while decoding it (none expected), and ebur128's integrated loudness and true peak to three
# decimals. CI has no ffmpeg: TestServedAudioMeasuresAsAsked renders the same bytes and holds
# them and the figures to this file.
#
#   fakeserver/internal/hosted/testdata/gen.sh
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd .. && go test -count=1 -run '^TestServedAudioMeasuresAsAsked$' . -args -write-served "$tmp")
{
  echo "{"
  first=1
  for f in "$tmp"/*; do
    name=$(basename "${f%.*}")
    warnings=$(ffmpeg -v warning -nostats -i "$f" -f null - 2>&1 | tr '\n' ' ' | sed 's/"/\\"/g; s/ *$//')
    rm -f "$tmp/meta.txt"
    ffmpeg -nostats -hide_banner -i "$f" \
      -af "ebur128=peak=true:framelog=verbose:metadata=1,ametadata=print:file=$tmp/meta.txt" -f null - 2>/dev/null
    i=$(grep '^lavfi.r128.I=' "$tmp/meta.txt" | tail -n1 | cut -d= -f2)
    tp=$(grep '^lavfi.r128.true_peak=' "$tmp/meta.txt" | tail -n1 | cut -d= -f2)
    sum=$(sha256sum "$f" | cut -d' ' -f1)
    [ $first = 1 ] || echo ","
    first=0
    awk -v n="$name" -v s="$sum" -v w="$warnings" -v i="$i" -v tp="$tp" \
      'BEGIN { printf "  \"%s\": {\"sha256\": \"%s\", \"warnings\": \"%s\", \"i\": %s, \"tp\": %.3f}", n, s, w, i, 20*log(tp)/log(10) }'
  done
  echo
  echo "}"
} > ffmpeg.json
cat ffmpeg.json
