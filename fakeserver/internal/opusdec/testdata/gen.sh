#!/usr/bin/env bash
# Makes the decoder's reference vectors (the tests never run this): a short stereo test signal
# (a 150 Hz pulse train with harmonics for the pitch post-filter, a chirp, noise bursts for
# transients and short blocks, and a right channel partly independent of the left for
# intensity and dual stereo) is encoded by ffmpeg's libopus at many settings, CELT-only (no
# SILK or hybrid packet: -application lowdelay, or rates where audio mode stays in CELT);
# each case is then decoded by libopus's float decoder (ffmpeg -c:a libopus -request_sample_fmt flt;
# without it ffmpeg asks libopus for 16-bit samples), and every 32nd
# sample (interleaved index) of that decode is kept as the reference, float32 little-endian.
#
#   fakeserver/internal/opusdec/testdata/gen.sh      # writes fakeserver/internal/opusdec/testdata/vectors/
set -euo pipefail
cd "$(dirname "$0")"
out=vectors
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -hide_banner -loglevel error -y -f lavfi -i \
  "aevalsrc=0.25*(sin(2*PI*150*t)+0.5*sin(2*PI*300*t)+0.33*sin(2*PI*450*t)+0.25*sin(2*PI*600*t))*lt(t\,0.25)+0.3*sin(2*PI*(300+3000*t)*t)*gte(t\,0.2)+0.4*random(0)*lt(mod(t\,0.125)\,0.01)|0.2*sin(2*PI*150*t+1)+0.15*sin(2*PI*(7000-6000*t)*t)+0.3*random(1)*lt(mod(t+0.06\,0.125)\,0.008):s=48000:d=0.5" \
  -c:a pcm_f32le "$tmp/src.wav"
# The same with 200 ms of digital silence (libopus codes it without CELT's silence flag;
# TestSilenceFlag covers that flag).
ffmpeg -hide_banner -loglevel error -y -i "$tmp/src.wav" -af "volume=enable='between(t,0.15,0.35)':volume=0" \
  -c:a pcm_f32le "$tmp/gap.wav"
# name  channels  options (a name ending in z encodes the source with silence)
cases=(
  "ld20_s64   2 -application lowdelay -frame_duration 20 -b:a 64k"
  "ld20_s12   2 -application lowdelay -frame_duration 20 -b:a 12k"
  "ld20_m6    1 -application lowdelay -frame_duration 20 -b:a 6k"
  "ld10_s32   2 -application lowdelay -frame_duration 10 -b:a 32k"
  "ld10_m24   1 -application lowdelay -frame_duration 10 -b:a 24k"
  "ld5_s96    2 -application lowdelay -frame_duration 5 -b:a 96k"
  "ld5_m48    1 -application lowdelay -frame_duration 5 -b:a 48k"
  "ld2.5_s128 2 -application lowdelay -frame_duration 2.5 -b:a 128k"
  "ld2.5_m16  1 -application lowdelay -frame_duration 2.5 -b:a 16k"
  "ld60_s64   2 -application lowdelay -frame_duration 60 -b:a 64k"
  "ld40_m32c  1 -application lowdelay -frame_duration 40 -b:a 32k -vbr off"
  "ld20_s48c  2 -application lowdelay -frame_duration 20 -b:a 48k -vbr off"
  "au20_s256  2 -application audio -frame_duration 20 -b:a 256k"
  "au20_s96c  2 -application audio -frame_duration 20 -b:a 96k -vbr off"
  "au10_m64   1 -application audio -frame_duration 10 -b:a 64k"
  "vo20_s128  2 -application voip -frame_duration 20 -b:a 128k"
  "ld20_s160  2 -application lowdelay -frame_duration 20 -b:a 160k -vbr constrained"
  "ld2.5_m10c 1 -application lowdelay -frame_duration 2.5 -b:a 10k -vbr off"
  "ld10_s24z  2 -application lowdelay -frame_duration 10 -b:a 24k"
)
for c in "${cases[@]}"; do
  read -r name ch opts <<<"$c"
  src=$tmp/src.wav
  [[ $name == *z ]] && src=$tmp/gap.wav
  # shellcheck disable=SC2086
  ffmpeg -hide_banner -loglevel error -y -i "$src" -ac "$ch" -c:a libopus $opts "$out/$name.opus"
  ffmpeg -hide_banner -loglevel error -y -c:a libopus -request_sample_fmt flt -i "$out/$name.opus" -f f32le "$tmp/$name.f32"
  python3 - "$tmp/$name.f32" "$out/$name.ref" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
n = len(d) // 4
with open(sys.argv[2], 'wb') as f:
    for i in range(0, n, 32):
        f.write(d[4 * i:4 * i + 4])
PY
done
