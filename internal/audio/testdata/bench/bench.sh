#!/usr/bin/env bash
# Times the fake's audio engine against ffmpeg on long 128 kbit/s stereo files, side by side on
# the same machine: MP3 (LAME), or with FORMAT=m4a AAC in M4A (ffmpeg's encoder; moov after the
# media data, as ffmpeg writes it, so the engine copies the media data to a temporary file),
# or FORMAT=m4a-faststart (moov first, decoded as it streams), with /usr/bin/time -v for wall time, CPU time and peak memory (max RSS).
# ffmpeg logs its 10 Hz frame lines at verbose level (framelog=verbose), so at -loglevel info
# it prints only the summary, as the Go command does.
# Needs ffmpeg (Debian: apt-get install -y ffmpeg) and Go. Files are made once in $DIR (/tmp).
#
#   [FORMAT=mp3|m4a|m4a-faststart] internal/audio/testdata/bench/bench.sh [minutes...]   # default: mp3, 60 180
set -euo pipefail
cd "$(dirname "$0")/../../../.."
FORMAT=${FORMAT:-mp3}
case $FORMAT in
mp3) ext=mp3 enc=(-c:a libmp3lame -b:a 128k) ;;
m4a) ext=m4a enc=(-c:a aac -b:a 128k) ;;
m4a-faststart) ext=m4a enc=(-c:a aac -b:a 128k -movflags +faststart) ;;
*) echo "FORMAT is mp3, m4a or m4a-faststart" >&2; exit 2 ;;
esac
DIR=${DIR:-/tmp/podqa-bench}
mkdir -p "$DIR"
go build -o "$DIR/measure" ./internal/audio/cmd/measure

for min in "${@:-60 180}"; do
  f="$DIR/${min}min-$FORMAT.$ext"
  if [ ! -s "$f" ]; then
    # Speech-like pink noise, slightly different in each channel, 44.1 kHz stereo, 128 kbit/s.
    ffmpeg -hide_banner -loglevel error -y -f lavfi \
      -i "anoisesrc=c=pink:r=44100:seed=7:a=0.3:d=$((min * 60))" \
      -af "lowpass=f=6000,pan=stereo|c0=c0|c1=0.9*c0,volume='0.3+0.7*abs(sin(2*PI*1.7*t))':eval=frame" \
      "${enc[@]}" "$f"
  fi
  echo "== $min minutes: $(du -h "$f" | cut -f1)"
  for tool in ffmpeg go; do
    if [ $tool = ffmpeg ]; then
      cmd=(ffmpeg -hide_banner -nostats -loglevel info -i "$f" -af ebur128=peak=true:framelog=verbose -f null -)
    else
      cmd=("$DIR/measure" "$f")
    fi
    /usr/bin/time -v "${cmd[@]}" >"$DIR/$tool.out" 2>"$DIR/$tool.err" || { cat "$DIR/$tool.err"; exit 1; }
    wall=$(grep 'Elapsed (wall' "$DIR/$tool.err" | awk '{print $NF}')
    user=$(grep 'User time' "$DIR/$tool.err" | awk '{print $NF}')
    sys=$(grep 'System time' "$DIR/$tool.err" | awk '{print $NF}')
    rss=$(grep 'Maximum resident' "$DIR/$tool.err" | awk '{print $NF}')
    if [ $tool = ffmpeg ]; then
      res=$(grep -A14 'Summary:' "$DIR/$tool.err" | grep -E ' I:|Peak:' | tr -s ' ' | tr '\n' ' ')
    else
      res=$(grep -E '"integrated_lufs"|"true_peak_db"' "$DIR/$tool.out" | tr -s ' ' | tr '\n' ' ')
    fi
    printf '%-6s wall %s  user %ss  sys %ss  maxRSS %s KB  %s\n' "$tool" "$wall" "$user" "$sys" "$rss" "$res"
  done
done
