#!/usr/bin/env bash
# Regenerates the decoder's fixtures with Debian's ffmpeg (recorded: ffmpeg 5.1.x of Debian 12,
# its libvorbis 1.3.7 encoder and its native Vorbis decoder). The tests only read the committed
# files; they never run ffmpeg.
#
# Each case is a short deterministic signal encoded by libvorbis (qualities -1 to 10, mono,
# stereo and 5.1, 8 to 96 kHz; transients make libvorbis switch to short blocks; pages of
# 100 ms, so that even these short streams have several audio pages) and the
# reference is ffmpeg's decode of that file, rounded to 24 bits (which keeps the comparison's
# floor near -140 dB) and gzipped: NAME.ogg and NAME.s24.gz. cases.txt lists them.
set -euo pipefail
cd "$(dirname "$0")"
ff=(ffmpeg -hide_banner -loglevel error -y -bitexact)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# speech: pink noise shaped like speech; clicks: a tone with a click every 90 ms (short blocks).
# Both peak well below full scale, so that the 24-bit reference is not clipped.
speech="anoisesrc=c=pink:seed=42:a=0.5,bandpass=f=800:t=h:w=1400,volume='0.2+0.8*abs(sin(2*PI*3*t))':eval=frame"
clicks="aevalsrc='0.25*sin(2*PI*440*t)+0.5*lt(mod(t\,0.09)\,0.002)*sin(2*PI*3000*t)'"

rm -f ./*.ogg ./*.s24.gz cases.txt
case_() { # name rate channels seconds quality signal
  local name=$1 rate=$2 ch=$3 secs=$4 q=$5 sig=$6 layout
  case $ch in 1) layout=mono ;; 2) layout=stereo ;; 6) layout=5.1 ;; esac
  "${ff[@]}" -f lavfi -i "$sig" -t "$secs" \
    -af "aformat=sample_fmts=flt:sample_rates=$rate:channel_layouts=$layout" -c:a pcm_f32le "$tmp/$name.wav"
  "${ff[@]}" -i "$tmp/$name.wav" -c:a libvorbis -q:a "$q" -page_duration 100000 "$name.ogg"
  "${ff[@]}" -i "$name.ogg" -f s24le -c:a pcm_s24le - | gzip -9n >"$name.s24.gz"
  echo "$name $rate $ch $q" >>cases.txt
}
case_ speech_m8_qm1 8000 1 0.6 -1 "$speech"
case_ speech_s11_q0 11025 2 0.5 0 "$speech"
case_ clicks_s22_q2 22050 2 0.5 2 "$clicks"
case_ speech_m16_q3 16000 1 0.5 3 "$speech"
case_ clicks_s44_q4 44100 2 0.4 4 "$clicks"
case_ speech_s44_q5 44100 2 0.4 5 "$speech"
case_ clicks_m32_q6 32000 1 0.4 6 "$clicks"
case_ speech_s48_q8 48000 2 0.3 8 "$speech"
case_ clicks_s96_q10 96000 2 0.2 10 "$clicks"
case_ speech_51_48_q3 48000 6 0.25 3 "$speech"
