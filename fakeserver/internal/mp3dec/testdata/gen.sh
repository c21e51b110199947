#!/usr/bin/env bash
# Makes the MP3 fixtures of the decoder tests with the LAME command-line encoder (Debian: apt-get
# install lame ffmpeg), covering what the fixtures of fakeserver/internal/audio do not: MPEG-2 and 2.5 sample
# rates, mono, simple, joint and dual-channel stereo, CRC protection, VBR, no bit reservoir, and
# transients that make the encoder switch to short blocks. LAME writes neither intensity stereo
# nor mixed blocks: the crafted_*.mp3 fixtures that cover them come from the tests' own encoder
# of chosen values (craft_test.go), MPEG-1 and MPEG-2. Then it stores ffmpeg's decode of every
# MP3 fixture (these and fakeserver/internal/audio's) as block statistics in ffmpeg.json: ffmpeg's float
# decoder is the reference the tests hold the decoder to. -flags2 +skip_manual keeps the encoder
# delay and padding in ffmpeg's output, so both decodes start at the first audio frame.
#
#   fakeserver/internal/mp3dec/testdata/gen.sh
set -euo pipefail
cd "$(dirname "$0")"
# A tone pair with clicks every 0.3 s in each channel (at different times), 1.5 s long.
signal="aevalsrc=exprs='0.3*sin(2*PI*440*t)+0.15*sin(2*PI*3100*t)+0.6*lt(mod(t,0.3),0.004)*(random(0)-0.5)|0.3*sin(2*PI*660*t)+0.6*lt(mod(t+0.15,0.3),0.004)*(random(1)-0.5)':s=48000:d=1.5"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# LAME picks its own output rate for a low bit rate unless --resample says it, and writes its
# Info frame (delay and padding) only to a file it can seek in.
make() { # name rate-kHz lame-options...
  local name=$1 khz=$2
  shift 2
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "$signal" -f wav "$tmp/in.wav"
  lame --quiet --noreplaygain --resample "$khz" "$@" "$tmp/in.wav" "$name"
}
make lsf22_mono_32k.mp3 22.05 -m m -b 32
make lsf24_joint_48k.mp3 24 -m j -b 48
make lsf16_stereo_32k.mp3 16 -m s -b 32
make mpeg25_8k_mono_16k.mp3 8 -m m -b 16
make mpeg25_11k_joint_24k.mp3 11.025 -m j -b 24
make mpeg25_12k_stereo_32k.mp3 12 -m s -b 32
make s32_dual_crc_128k.mp3 32 -m d -b 128 -p
make s44_joint_vbr.mp3 44.1 -m j -V 2
make s48_mono_nores_64k.mp3 48 -m m -b 64 --nores
(cd .. && go test -count=1 -run '^TestCraftedFixtures$' . -args -update-crafted)
(cd .. && for f in testdata/*.mp3 ../audio/testdata/formats/*.mp3; do
  ch=$(ffprobe -v error -select_streams a:0 -show_entries stream=channels -of csv=p=0 "$f")
  # Samples per channel of ffmpeg's ordinary decode, with the LAME tag's delay and padding cut.
  trimmed=$(( $(ffmpeg -v error -i "$f" -f s16le - | wc -c) / 2 / ch ))
  ffmpeg -hide_banner -loglevel error -flags2 +skip_manual -i "$f" -f f64le -acodec pcm_f64le - |
    go run ./testdata/blockstats "$(basename "$f")" "$ch" "$trimmed"
done) | go run ./blockstats -merge > ffmpeg.json
