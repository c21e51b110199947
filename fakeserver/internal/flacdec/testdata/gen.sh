#!/usr/bin/env bash
# Makes the FLAC fixtures of the decoder tests, about a second each, with ffmpeg's encoder and
# with libFLAC (through sox), and stores ffmpeg's decode of each as a SHA-256 of its samples as
# 32-bit little-endian integers (every sample shifted to the top of 32 bits, as ffmpeg's
# pcm_s32le output gives them) in ffmpeg.sha256: lossless decoding has one right answer.
# They cover every channel assignment (independent, left/side, side/right, mid/side), fixed and
# LPC predictors up to order 32, Rice and Rice2 residuals, 8, 16 and 24 bits, 1 to 6 channels,
# explicit block sizes, verbatim subframes, escaped partitions, wasted bits and constant
# subframes (digital silence).
#
#   fakeserver/internal/flacdec/testdata/gen.sh
set -euo pipefail
cd "$(dirname "$0")"
# Speech-like: a tone with vibrato and harmonics under an amplitude envelope, quiet noise, and
# 0.1 s of digital silence; the second channel differs a little from the first.
sig() { # rate channels
  local ch=() i
  for ((i = 0; i < $2; i++)); do
    ch+=("if(between(t,0.4,0.5),0,(0.3+0.2*sin(2*PI*3*t))*(sin(2*PI*(180+$i*7)*t+2*sin(2*PI*5*t))+0.3*sin(2*PI*(540+$i*21)*t))+0.01*(random($i)-0.5))")
  done
  local IFS='|'
  echo "aevalsrc=exprs='${ch[*]}':s=$1:d=1.1"
}
ff() { # name rate channels ffmpeg-options...
  local name=$1 rate=$2 ch=$3
  shift 3
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "$(sig "$rate" "$ch")" -c:a flac "$@" "$name"
}
ff s16_44k_stereo.flac 44100 2 -sample_fmt s16
ff s16_48k_stereo_c12.flac 48000 2 -sample_fmt s16 -compression_level 12
ff s16_48k_leftside_fixed.flac 48000 2 -sample_fmt s16 -ch_mode left_side -lpc_type fixed
ff s16_48k_rightside_bs1000.flac 48000 2 -sample_fmt s16 -ch_mode right_side -frame_size 1000
ff s16_48k_midside_lpc32.flac 48000 2 -sample_fmt s16 -ch_mode mid_side -max_prediction_order 32 -lpc_passes 2
ff s16_8k_mono_none.flac 8000 1 -sample_fmt s16 -lpc_type none
ff s24_96k_stereo.flac 96000 2 -sample_fmt s32 -bits_per_raw_sample 24
ff s16_48k_6ch_indep.flac 48000 6 -sample_fmt s16 -ch_mode indep -frame_size 576
# Noise, which the encoders code verbatim or with escaped partitions, at rates a frame header
# gives in Hz (11,025) or kHz (12,000), with blocks sized in one byte (192 < 256).
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "anoisesrc=c=white:r=11025:a=0.9:d=0.5:seed=3" \
  -c:a flac -sample_fmt s16 -frame_size 200 noise_11k_mono.flac
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "anoisesrc=c=brown:r=12000:a=0.5:d=0.5:seed=4" \
  -c:a flac -sample_fmt s16 -lpc_type fixed -ac 2 noise_12k_fixed.flac
# libFLAC through sox: its own encoder's choices, 8 and 24 bits, and wasted bits (even samples,
# 15-bit audio stored in 16; and the 24-bit file holds 16-bit audio).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "$(sig 44100 2)" -c:a pcm_s16le "$tmp/in.wav"
sox "$tmp/in.wav" -C 8 libflac_s16_44k_c8.flac
sox "$tmp/in.wav" -b 8 -C 5 libflac_s8_44k.flac
sox "$tmp/in.wav" -b 24 -C 0 libflac_s24_44k_c0.flac
sox "$tmp/in.wav" -b 16 "$tmp/q.wav" vol 0.5 && sox "$tmp/q.wav" -b 16 -e signed "$tmp/q14.wav" vol 2 # 15 bits in 16
sox "$tmp/q14.wav" -C 5 libflac_s16_wasted.flac
for f in *.flac; do
  printf '%s %s\n' "$f" "$(ffmpeg -hide_banner -loglevel error -i "$f" -c:a pcm_s32le -f s32le - | sha256sum | cut -d' ' -f1)"
done > ffmpeg.sha256
ls -l *.flac
