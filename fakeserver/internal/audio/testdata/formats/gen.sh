#!/usr/bin/env bash
# Regenerates the format fixtures and their references (reference.json) with Debian's ffmpeg
# (recorded: ffmpeg 5.1.x of Debian 12; install with `apt-get install -y ffmpeg jq`). The tests
# only read the committed files; they never run ffmpeg.
#
# Signals are deterministic (lavfi sources with fixed seeds) and fade in over 50 ms, because the
# true peak of an abrupt first sample depends on how a tool primes its filter. Each reference
# holds ffmpeg's ebur128=peak=true integrated loudness (three decimals, from metadata=1) and
# true peak (the largest channel's, which the metadata gives as a linear ratio: stored in dB),
# the number of samples per channel ffmpeg's decoder outputs, and ffprobe's codec, format, rate, channels and duration.
set -euo pipefail
cd "$(dirname "$0")"
ff=(ffmpeg -hide_banner -loglevel error -y -bitexact)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Sources, as 32-bit float WAV.
# tone: 1 kHz sine at −20 dBFS (lavfi sine peaks at 1/8, −18.06 dBFS).  step: 500 Hz at −32 dBFS for 1.5 s then −14 dBFS (gating).
# speech: pink noise shaped like speech (band-limited, syllable-rate amplitude modulation).
src() { # name rate channels seconds filter
  "${ff[@]}" -f lavfi -i "$5" -t "$4" -af "afade=t=in:d=0.05,aformat=sample_fmts=flt:sample_rates=$2:channel_layouts=$([ "$3" = 1 ] && echo mono || echo stereo)" \
    -c:a pcm_f32le "$tmp/$1.wav"
}
src tone_m44 44100 1 3 "sine=f=1000:r=44100,volume=-1.94dB"
src tone_s48 48000 2 3 "sine=f=1000:r=48000,volume=-1.94dB"
src step_s48 48000 2 3 "sine=f=500:r=48000,volume='if(lt(t,1.5),0.2007,1.5896)':eval=frame"
src speech_s44 44100 2 3 "anoisesrc=c=pink:r=44100:seed=42:a=0.5,bandpass=f=700:t=h:w=1200,volume='0.2+0.8*abs(sin(2*PI*2*t))':eval=frame"
src speech_m48 48000 1 3 "anoisesrc=c=pink:r=48000:seed=7:a=0.5,bandpass=f=900:t=h:w=1400,volume='0.2+0.8*abs(sin(2*PI*2.3*t))':eval=frame"
# AAC's lowest rate (7,350 Hz, sampling frequency index 11), which the meter must take too.
src speech_m7 7350 1 3 "anoisesrc=c=pink:r=7350:seed=11:a=0.5,bandpass=f=900:t=h:w=1400,volume='0.2+0.8*abs(sin(2*PI*2.3*t))':eval=frame"

rm -f ./*.mp3 ./*.flac ./*.ogg ./*.opus ./*.wav ./*.m4a ./*.aac
enc() { # source output codec-args...
  local s=$1 out=$2; shift 2
  "${ff[@]}" -i "$tmp/$s.wav" "$@" "$out"
}
enc tone_m44 tone_m44.mp3 -c:a libmp3lame -b:a 128k
enc speech_s44 speech_s44.mp3 -c:a libmp3lame -b:a 128k
enc step_s48 step_s48.mp3 -c:a libmp3lame -b:a 128k
enc speech_m48 speech_m48.mp3 -c:a libmp3lame -b:a 64k
enc tone_m44 tone_m44.flac -c:a flac
enc step_s48 step_s48_24.flac -c:a flac -sample_fmt s32 -bits_per_raw_sample 24
enc tone_s48 tone_s48.ogg -c:a libvorbis -q:a 4
enc speech_s44 speech_s44.ogg -c:a libvorbis -q:a 3
enc speech_m48 speech_m48.opus -c:a libopus -b:a 48k
enc step_s48 step_s48.opus -c:a libopus -b:a 64k
enc speech_m48 speech_m48_12.opus -c:a libopus -b:a 12k -application voip
enc speech_s44 speech_s44_96.opus -c:a libopus -b:a 96k -application audio
# AAC LC by ffmpeg's native encoder: M4A with the moov box after the media data (ffmpeg's
# default) and before it (+faststart), and ADTS streams.
enc speech_s44 speech_s44.m4a -c:a aac -b:a 128k
enc speech_m48 speech_m48_fs.m4a -c:a aac -b:a 64k -movflags +faststart
enc step_s48 step_s48.aac -c:a aac -b:a 128k
enc tone_m44 tone_m44.aac -c:a aac -b:a 96k
enc speech_m7 speech_m7.aac -c:a aac -b:a 24k
"${ff[@]}" -i "$tmp/tone_m44.wav" -t 1 -c:a pcm_f32le tone_m44_f32.wav
"${ff[@]}" -i "$tmp/step_s48.wav" -t 1.6 -c:a pcm_s24le step_s48_s24.wav

# Tagged files: a 2 s tone with title, artist, album, track, date, copyright, comment, two
# chapters and a 64×48 PNG cover.
"${ff[@]}" -f lavfi -i "color=c=red:s=64x48" -frames:v 1 "$tmp/cover.png"
cat >"$tmp/meta.txt" <<'META'
;FFMETADATA1
title=Episode Title
artist=The Artist
album=The Show
track=7/12
date=2026
copyright=(c) 2026 Podqa
comment=A comment

[CHAPTER]
TIMEBASE=1/1000
START=0
END=1000
title=Intro

[CHAPTER]
TIMEBASE=1/1000
START=1000
END=2000
title=Main
META
"${ff[@]}" -f lavfi -i "sine=f=440:r=44100,volume=-1.94dB,afade=t=in:d=0.05" -t 2 "$tmp/tag.wav"
tagged() { # output audio-args...
  local out=$1; shift
  "${ff[@]}" -i "$tmp/tag.wav" -i "$tmp/meta.txt" -i "$tmp/cover.png" -map 0:a -map 2:v \
    -map_metadata 1 -map_chapters 1 -disposition:v attached_pic "$@" "$out"
}
tagged tagged.mp3 -c:a libmp3lame -b:a 128k -c:v png -id3v2_version 3
# ffmpeg's FLAC and Ogg muxers drop the chapters: write the CHAPTERnnn comments themselves.
vchap=(-metadata CHAPTER001=00:00:00.000 -metadata CHAPTER001NAME=Intro -metadata CHAPTER002=00:00:01.000 -metadata CHAPTER002NAME=Main)
tagged tagged.flac -c:a flac -c:v png "${vchap[@]}"
tagged tagged.m4a -c:a aac -b:a 96k -c:v png
"${ff[@]}" -i "$tmp/tag.wav" -i "$tmp/meta.txt" -map 0:a -map_metadata 1 -map_chapters 1 -c:a libvorbis -q:a 2 "${vchap[@]}" tagged.ogg

# References.
# Opus is decoded with libopus, the reference decoder of RFC 6716: ffmpeg's own opus decoder
# (its default) resamples SILK frames differently, is 14 dB SNR away from libopus on
# speech_m48.opus and reads its true peak 0.3 dB higher; libopus and pion/opus agree within
# 60 dB SNR.
ref() { # file
  local f=$1 meta I TP probe dec=()
  [[ $f == *.opus ]] && dec=(-c:a libopus)
  meta="$tmp/$f.meta"
  ffmpeg -hide_banner -loglevel error -nostats "${dec[@]}" -i "$f" -map 0:a \
    -af "ebur128=peak=true:metadata=1,ametadata=mode=print:file=$meta" -f null -
  I=$(grep -o 'lavfi.r128.I=.*' "$meta" | tail -1 | cut -d= -f2)
  TP=$(grep -o 'lavfi.r128.true_peaks_ch[0-9]*=.*' "$meta" | tail -"$(ffprobe -v error -select_streams a:0 -show_entries stream=channels -of csv=p=0 "$f")" | cut -d= -f2 | sort -g | tail -1)
  # Samples per channel that ffmpeg's decoder outputs (after encoder delay, padding, pre-skip).
  frames=$(( $(ffmpeg -v error "${dec[@]}" -i "$f" -map 0:a -f s32le - | wc -c) / 4 / $(ffprobe -v error -select_streams a:0 -show_entries stream=channels -of csv=p=0 "$f") ))
  probe=$(ffprobe -v error -select_streams a:0 -show_entries stream=codec_name,sample_rate,channels,duration,bit_rate:format=format_name,duration -of json "$f")
  jq -n --arg f "$f" --argjson frames "$frames" --arg I "$I" --arg TP "$TP" --argjson p "$probe" '{
    file: $f, integrated_lufs: ($I|tonumber), true_peak_db: ((($TP|tonumber)|log10)*20*1000|round/1000),
    codec_name: $p.streams[0].codec_name, format_name: $p.format.format_name,
    sample_rate: ($p.streams[0].sample_rate|tonumber), channels: $p.streams[0].channels,
    decoded_frames: $frames,
    duration: (($p.streams[0].duration // $p.format.duration)|tonumber),
    bit_rate: (($p.streams[0].bit_rate // "0")|tonumber)}'
}
{
  for f in *.mp3 *.flac *.ogg *.opus *.wav *.m4a *.aac; do ref "$f"; done
} | jq -s '{ffmpeg: $v, files: .}' --arg v "$(ffmpeg -version | head -1)" >reference.json
# ffmpeg's decode of the M4A fixtures as block statistics (fakeserver/internal/mp3dec/testdata/blockstats):
# the tests hold the edit list's trimming to it sample for sample.
for f in *.m4a; do
  ch=$(ffprobe -v error -select_streams a:0 -show_entries stream=channels -of csv=p=0 "$f")
  ffmpeg -hide_banner -loglevel error -i "$f" -f f64le -acodec pcm_f64le - >"$tmp/pcm"
  go run ../../../mp3dec/testdata/blockstats "$f" "$ch" "$(($(stat -c %s "$tmp/pcm") / 8 / ch))" <"$tmp/pcm"
done | go run ../../../mp3dec/testdata/blockstats -merge >m4a_blocks.json
du -ch ./*.mp3 ./*.flac ./*.ogg ./*.opus ./*.wav ./*.m4a ./*.aac | tail -1
