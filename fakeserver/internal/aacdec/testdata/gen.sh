#!/usr/bin/env bash
# Makes the ADTS fixtures of the decoder tests with ffmpeg's native AAC encoder (Debian: apt-get
# install ffmpeg), one per sampling rate from 7.35 to 96 kHz (every band table), mono and stereo,
# each coding algorithm and each tool switched on and off, then stores ffmpeg's own decode of
# each as block statistics in ffmpeg.json: ffmpeg's float decoder is the reference the tests hold
# the decoder to. The signal is a tone pair, hiss (which the encoder codes as noise
# substitution) and clicks (which make it switch to short windows), its channels related enough
# for mid/side and intensity stereo.
#
#   fakeserver/internal/aacdec/testdata/gen.sh
set -euo pipefail
cd "$(dirname "$0")"
rm -f ./*.aac
left='0.25*sin(2*PI*440*t)+0.12*sin(2*PI*3100*t)+0.05*(random(0)-0.5)+0.6*lt(mod(t,0.3),0.004)*(random(2)-0.5)'
right='0.2*sin(2*PI*440*t+0.3)+0.1*sin(2*PI*5200*t)+0.05*(random(1)-0.5)+0.6*lt(mod(t+0.15,0.3),0.004)*(random(3)-0.5)'
make() { # name rate channels encoder-options...
  local name=$1 rate=$2 ch=$3 exprs="$left|$right"
  shift 3
  [ "$ch" = 1 ] && exprs="$left"
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "aevalsrc=exprs='$exprs':s=$rate:d=1.5" \
    -c:a aac "$@" "$name"
}
make s96_stereo_tns_off.aac 96000 2 -b:a 192k -aac_tns 0
make s88_mono.aac 88200 1 -b:a 96k
make s64_stereo_ms_forced.aac 64000 2 -b:a 128k -aac_ms 1
make s48_stereo_is_off.aac 48000 2 -b:a 96k -aac_is 0
make s44_stereo.aac 44100 2 -b:a 128k
make s44_stereo_fast.aac 44100 2 -b:a 96k -aac_coder fast
make s44_mono_anmr.aac 44100 1 -b:a 64k -aac_coder anmr -strict experimental
make s32_mono_pns_off.aac 32000 1 -b:a 32k -aac_pns 0
make s24_stereo_low.aac 24000 2 -b:a 32k
make s22_mono_tns_off_pns.aac 22050 1 -b:a 24k -aac_tns 0
make s16_stereo_ms_off.aac 16000 2 -b:a 48k -aac_ms 0
make s12_mono.aac 12000 1 -b:a 24k
make s11_stereo_pns_off.aac 11025 2 -b:a 32k -aac_pns 0
make s8_mono.aac 8000 1 -b:a 16k
make s7_stereo_is_off_ms_off.aac 7350 2 -b:a 24k -aac_is 0 -aac_ms 0
(cd .. && for f in testdata/*.aac; do
  ch=$(ffprobe -v error -select_streams a:0 -show_entries stream=channels -of csv=p=0 "$f")
  ffmpeg -hide_banner -loglevel error -i "$f" -f f64le -acodec pcm_f64le - > "$f.f64"
  n=$(( $(stat -c %s "$f.f64") / 8 / ch ))
  go run ../mp3dec/testdata/blockstats "$(basename "$f")" "$ch" "$n" < "$f.f64"
  rm "$f.f64"
done) | go run ../../mp3dec/testdata/blockstats -merge > ffmpeg.json
