#!/usr/bin/env bash
# Issue 29's whole-file check at length: the fake hosts 3 h episodes (by default an MP3 at
# 44.1 kHz stereo 128 kbit/s, an MP3 at 48 kHz mono 96 kbit/s, and a WAV at 44.1 kHz stereo),
# each download is taken whole over loopback as a client would take it, and the whole served
# file is measured by our engine (fakeserver/internal/audio/cmd/measure) and by ffmpeg
# (ebur128=peak=true). Each must be within 0.1 LU of the loudness asked and at or under the true
# peak asked (ffmpeg prints three decimals, so its figure may round up by 0.0005). It prints one
# line per episode with both figures and the CPU seconds of the fake hosting it (planning and
# calibration), the fake rendering the download, our measurement and ffmpeg's, and exits 1 if any misses. Too heavy for CI (a 3 h MP3 is minutes of CPU to
# encode); run it by hand, niced on a shared machine (Debian: apt-get install ffmpeg):
#
#   nice -n 10 fakeserver/internal/hosted/testdata/long.sh        # 3 h
#   HOURS=0.5 fakeserver/internal/hosted/testdata/long.sh         # any length
set -euo pipefail
cd "$(dirname "$0")/../../../.."
hours=${HOURS:-3}
dur=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }')
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/fakeserver" ./fakeserver/cmd/fakeserver
go build -o "$tmp/measure" ./fakeserver/internal/audio/cmd/measure

# The fake, on a free loopback port; its first line of standard output is its JSON start line.
mkfifo "$tmp/start"
"$tmp/fakeserver" -addr 127.0.0.1:0 -log-level warn >"$tmp/start" 2>"$tmp/fake.log" &
pid=$!
read -r line <"$tmp/start"
exec 3<"$tmp/start" # keep the pipe open so the fake never writes to a closed one
field() { echo "$line" | sed "s/.*\"$1\":\"\([^\"]*\)\".*/\1/"; }
base=$(field base_url)
token=$(field admin_token)

# name|loudness|true peak|episode JSON (without title and duration)
cases=(
  "mp3_44k_stereo_128k|-23|-3|\"loudness_lufs\":-23,\"true_peak_db\":-3"
  "mp3_48k_mono_96k|-16|-1|\"loudness_lufs\":-16,\"true_peak_db\":-1,\"channels\":1,\"sample_rate\":48000,\"bit_rate\":96"
  "wav_44k_stereo|-18|-2|\"loudness_lufs\":-18,\"true_peak_db\":-2,\"format\":\"wav\""
)
status=0
for c in "${cases[@]}"; do
  IFS='|' read -r name wantI wantTP spec <<<"$c"
  cpu0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  feed=$(curl -sf -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"title\":\"Long\",\"episodes\":[{\"title\":\"$name\",\"duration_s\":$dur,$spec}]}" "$base/_fake/feeds")
  cpuHosted=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  feedURL=$(echo "$feed" | sed 's/.*"feed_url":"\([^"]*\)".*/\1/')
  audioURL=$(curl -sf "$feedURL" | grep -o '<enclosure [^>]*>' | head -n1 | grep -o 'url="[^"]*"' | sed 's/^url="//; s/"$//; s/&amp;/\&/g')
  file="$tmp/$name"
  curl -sf -o "$file" "$audioURL"
  cpu1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  hz=$(getconf CLK_TCK)
  hostCPU=$(awk -v a="$cpu0" -v b="$cpuHosted" -v hz="$hz" 'BEGIN { printf "%.1f", (b - a) / hz }')
  renderCPU=$(awk -v a="$cpuHosted" -v b="$cpu1" -v hz="$hz" 'BEGIN { printf "%.1f", (b - a) / hz }')
  bytes=$(stat -c %s "$file")

  /usr/bin/time -o "$tmp/ours.time" -f '%U %S' "$tmp/measure" "$file" >"$tmp/ours.json"
  ourI=$(grep -o '"integrated_lufs": *-\?[0-9.]*' "$tmp/ours.json" | grep -o -- '-\?[0-9.]*$')
  ourTP=$(grep -o '"true_peak_db": *-\?[0-9.]*' "$tmp/ours.json" | grep -o -- '-\?[0-9.]*$')
  ourCPU=$(awk '{ printf "%.1f", $1 + $2 }' "$tmp/ours.time")

  rm -f "$tmp/meta.txt"
  /usr/bin/time -o "$tmp/ff.time" -f '%U %S' ffmpeg -nostats -hide_banner -threads 1 -i "$file" \
    -af "ebur128=peak=true:metadata=1,ametadata=print:file=$tmp/meta.txt" -f null - 2>/dev/null
  ffI=$(grep '^lavfi.r128.I=' "$tmp/meta.txt" | tail -n1 | cut -d= -f2)
  ffTP=$(grep '^lavfi.r128.true_peak=' "$tmp/meta.txt" | tail -n1 | cut -d= -f2 | awk '{ printf "%.3f", 20 * log($1) / log(10) }')
  ffCPU=$(awk '{ printf "%.1f", $1 + $2 }' "$tmp/ff.time")
  rm -f "$file"

  verdict=$(awk -v w="$wantI" -v p="$wantTP" -v a="$ourI" -v b="$ourTP" -v c="$ffI" -v d="$ffTP" 'BEGIN {
    ok = (a - w <= 0.1 && w - a <= 0.1 && c - w <= 0.1 && w - c <= 0.1 && b <= p + 0.0005 && d <= p + 0.0005)
    print ok ? "ok" : "MISS" }')
  [ "$verdict" = ok ] || status=1
  printf '%s %s h, %d bytes: asked %s LUFS / %s dBTP; ours %.3f LUFS / %.3f dBTP; ffmpeg %.3f LUFS / %.3f dBTP; CPU s: fake hosting (plan, calibrate) %s, rendering the download %s, ours %s, ffmpeg %s: %s\n' \
    "$name" "$hours" "$bytes" "$wantI" "$wantTP" "$ourI" "$ourTP" "$ffI" "$ffTP" "$hostCPU" "$renderCPU" "$ourCPU" "$ffCPU" "$verdict"
done
exit $status
