#!/usr/bin/env bash
# Times the fake's audio engine (fakeserver/internal/audio/cmd/measure) against ffmpeg's ebur128 filter on
# speech files of every codec the engine reads, and prints, per codec, our CPU (user+sys) over
# ffmpeg's, our wall time over ffmpeg's and both peak RSS figures.
#
# The source is synthetic speech: espeak-ng reading a fixed text with several voices and speeds,
# looped to the duration (at −6 dB, so that no encode clips), over a quiet 150 Hz tone (−45 dBFS), 44.1 kHz stereo with the right
# channel a delayed, quieter copy of the left. Every codec is encoded from that one source by
# ffmpeg: MP3 (LAME 128 kbit/s), AAC LC 128 kbit/s in M4A (moov after the media data, as ffmpeg
# writes it) and in ADTS, Opus 64 kbit/s (48 kHz), Vorbis q4, FLAC and 16-bit WAV; CODECS may
# also name m4a-faststart (moov first, decoded as it streams).
# Files are made once in $DIR (default /tmp/podqa-bench); they are never committed.
#
# For each run, ffmpeg and measure alternate (ffmpeg first on odd runs, ours first on even ones),
# so a change in the machine's load hits both; the table gives the median of the per-run ratios
# and the median of each tool's figures. ffmpeg runs single-threaded, as the issue measures it:
#   ffmpeg -nostats -threads 1 -i F -af ebur128=peak=true:framelog=verbose -f null -
# (framelog=verbose logs the 10 Hz frame lines at verbose level, so at -loglevel info ffmpeg
# prints only its summary, as measure does).
#
# Needs ffmpeg, espeak-ng, GNU time (/usr/bin/time) and Go (and python3 for PROFILE).
#
#   [RUNS=3] [CODECS="mp3 m4a adts opus vorbis flac wav"] [WORKERS=n] [TASKSET=cpulist] \
#     [PROFILE=1] [MEASURE=path] [DIR=/tmp/podqa-bench] fakeserver/internal/audio/testdata/bench/bench.sh [minutes...]
#
# The default duration is 60 minutes, the one-hour file the README's table reports; making the
# files takes about 15 minutes of ffmpeg the first time (10 for 10 minutes' worth). A 60-minute
# table at RUNS=3 runs each tool three times on each file: about 3 minutes per codec on an idle
# 2-core machine.
# MEASURE=path times that measure binary instead of building this tree's (to compare commits).
# TASKSET pins both tools to the given CPUs (taskset -c), for example TASKSET=0 for one core.
# PROFILE=1 also runs measure once more per file with -cpuprofile ($DIR/profile.MIN.CODEC.pb)
# and prints, under the table, where its CPU goes: decoder, K-weighting, true peak, gating,
# the meter's input pass, I/O and the runtime (cpusplit.py; PROFILE.md has the figures).
set -euo pipefail
cd "$(dirname "$0")/../../../../.."
here=fakeserver/internal/audio/testdata/bench
RUNS=${RUNS:-3}
CODECS=${CODECS:-mp3 m4a adts opus vorbis flac wav}
DIR=${DIR:-/tmp/podqa-bench}
mkdir -p "$DIR"
if [ -n "${MEASURE:-}" ]; then
  cp "$MEASURE" "$DIR/measure" # a prebuilt measure, for example another commit's
else
  go build -o "$DIR/measure" ./fakeserver/internal/audio/cmd/measure
fi
pin=()
if [ -n "${TASKSET:-}" ]; then pin=(taskset -c "$TASKSET"); fi
wflag=()
if [ -n "${WORKERS:-}" ]; then wflag=(-workers "$WORKERS"); fi

# speech makes $DIR/speech.wav: about two minutes of espeak-ng speech, 22.05 kHz mono.
speech() {
  local out=$DIR/speech.wav
  [ -s "$out" ] && return
  local text="The quick brown fox jumps over the lazy dog while the podcast host reads the \
sponsor message. Loudness is measured over blocks of four hundred milliseconds with a gate at \
minus seventy and a relative gate ten units below the ungated level. Welcome back to the show: \
today we talk about audio quality, true peak, and why the integrated loudness of speech depends \
on its pauses as much as on its words. Thank you for listening, and see you next week."
  local parts=() i=0
  for v in en-us en-gb en-gb-scotland en-us+f3 en-gb+m4 en-us+f2; do
    for s in 150 175; do
      i=$((i + 1))
      espeak-ng -v "$v" -s "$s" -a 160 -w "$DIR/part$i.wav" "$text"
      parts+=(-i "$DIR/part$i.wav")
    done
  done
  ffmpeg -hide_banner -loglevel error -y "${parts[@]}" \
    -filter_complex "concat=n=$i:v=0:a=1,aresample=22050" -ac 1 "$out"
  rm -f "$DIR"/part*.wav
}

# source makes the $1-minute 44.1 kHz stereo source.
source_wav() {
  local min=$1 out=$DIR/${1}min-source.wav
  [ -s "$out" ] && return
  speech
  ffmpeg -hide_banner -loglevel error -y -stream_loop -1 -i "$DIR/speech.wav" \
    -f lavfi -i "sine=f=150:r=44100:d=$((min * 60))" \
    -filter_complex "[0]aresample=44100,atrim=duration=$((min * 60)),volume=0.5[s];[1]volume=0.0056[t];\
[s][t]amix=inputs=2:normalize=0,pan=stereo|c0=c0|c1=0.8*c0,adelay=0|3" \
    -t $((min * 60)) -c:a pcm_s16le "$out"
}

# encode makes the $1-minute file of codec $2 and prints its name.
encode() {
  local min=$1 codec=$2 ext enc
  case $codec in
  mp3) ext=mp3 enc=(-c:a libmp3lame -b:a 128k) ;;
  m4a) ext=m4a enc=(-c:a aac -b:a 128k) ;;
  m4a-faststart) ext=m4a enc=(-c:a aac -b:a 128k -movflags +faststart) ;;
  adts) ext=aac enc=(-c:a aac -b:a 128k -f adts) ;;
  opus) ext=opus enc=(-c:a libopus -b:a 64k) ;;
  vorbis) ext=ogg enc=(-c:a libvorbis -q:a 4) ;;
  flac) ext=flac enc=(-c:a flac) ;;
  wav) ext=wav enc=(-c:a pcm_s16le) ;;
  *) echo "unknown codec $codec" >&2; exit 2 ;;
  esac
  local f=$DIR/${min}min.$codec.$ext
  if [ ! -s "$f" ]; then
    source_wav "$min"
    ffmpeg -hide_banner -loglevel error -y -i "$DIR/${min}min-source.wav" "${enc[@]}" "$f"
  fi
  echo "$f"
}

# run times one tool on file $2 and prints "cpu wall rss result".
run() {
  local tool=$1 f=$2 cmd
  if [ "$tool" = ffmpeg ]; then
    cmd=(ffmpeg -hide_banner -nostats -threads 1 -loglevel info -i "$f" -af ebur128=peak=true:framelog=verbose -f null -)
  else
    cmd=("$DIR/measure" "${wflag[@]}" "$f")
  fi
  /usr/bin/time -f 'TIME %U %S %e %M' "${pin[@]}" "${cmd[@]}" >"$DIR/$tool.out" 2>"$DIR/$tool.err" || { cat "$DIR/$tool.err" >&2; exit 1; }
  local t res
  t=$(grep '^TIME ' "$DIR/$tool.err" | tail -1)
  if [ "$tool" = ffmpeg ]; then
    res=$(grep -A14 'Summary:' "$DIR/$tool.err" | grep -E ' I:|Peak:' | awk '{print $2}' | tr '\n' '/')
  else
    res=$(grep -E '"integrated_lufs"|"true_peak_db"' "$DIR/$tool.out" | tr -dc '0-9.\n-' | tr '\n' '/')
  fi
  echo "$t" | awk -v r="$res" '{printf "%.2f %.2f %d %s\n", $2 + $3, $4, $5 / 1024, r}'
}

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "runs=$RUNS load=$(cut -d' ' -f1-3 /proc/loadavg) cpus=$(nproc) taskset=${TASKSET:-none} workers=${WORKERS:-default}"
for min in "${@:-60}"; do
  echo
  echo "== $min minutes (medians of $RUNS alternating runs; CPU is user+sys; I/true peak as printed)"
  printf '| %-6s | %-6s | %-6s | %-6s | %-13s | %-13s | %-13s | %-15s | %-15s |\n' \
    file size "CPU ×" "wall ×" "CPU ours/ff" "wall ours/ff" "RSS MiB ours/ff" "I/TP ffmpeg" "I/TP ours"
  printf '|%s|\n' "--------|--------|--------|--------|---------------|---------------|-----------------|-----------------|-----------------"
  for codec in $CODECS; do
    f=$(encode "$min" "$codec")
    : >"$DIR/runs.txt"
    for r in $(seq "$RUNS"); do
      if [ $((r % 2)) = 1 ]; then
        a=$(run ffmpeg "$f"); b=$(run go "$f")
      else
        b=$(run go "$f"); a=$(run ffmpeg "$f")
      fi
      echo "$a $b" >>"$DIR/runs.txt"
    done
    # columns: ffcpu ffwall ffrss ffres gocpu gowall gorss gores
    cpur=$(awk '{print $5 / $1}' "$DIR/runs.txt" | median)
    wallr=$(awk '{print $6 / $2}' "$DIR/runs.txt" | median)
    gcpu=$(awk '{print $5}' "$DIR/runs.txt" | median)
    fcpu=$(awk '{print $1}' "$DIR/runs.txt" | median)
    gwall=$(awk '{print $6}' "$DIR/runs.txt" | median)
    fwall=$(awk '{print $2}' "$DIR/runs.txt" | median)
    grss=$(awk '{print $7}' "$DIR/runs.txt" | median)
    frss=$(awk '{print $3}' "$DIR/runs.txt" | median)
    fres=$(tail -1 "$DIR/runs.txt" | awk '{print $4}')
    gres=$(tail -1 "$DIR/runs.txt" | awk '{print $8}')
    printf '| %-6s | %-6s | %-6s | %-6s | %-13s | %-13s | %-15s | %-15s | %-15s |\n' \
      "$codec" "$(du -hL "$f" | cut -f1)" "$(printf '%.2f' "$cpur")" "$(printf '%.2f' "$wallr")" \
      "${gcpu}/${fcpu} s" "${gwall}/${fwall} s" "${grss}/${frss}" "${fres%/}" "${gres%/}"
  done
  if [ -n "${PROFILE:-}" ]; then
    for codec in $CODECS; do
      f=$(encode "$min" "$codec")
      p=$DIR/profile.$min.$codec.pb
      "${pin[@]}" "$DIR/measure" "${wflag[@]}" -cpuprofile "$p" "$f" >/dev/null
      echo
      echo "-- $codec, $min minutes: CPU by stage ($p)"
      go tool pprof -traces "$DIR/measure" "$p" 2>/dev/null | python3 "$here/cpusplit.py"
    done
  fi
done
