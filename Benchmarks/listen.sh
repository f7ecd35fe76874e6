#!/usr/bin/env bash
# Playback benchmark (not a test) for `shelf listen`, issues 5 and 12, with mpv (Debian's) measured in the same run
# on the same file. Targets: ≤ 1% of a core at 1×; first audio ≤ 150 ms from `shelf listen --no-ui --from 0:30` with
# no silence ahead of the sound; ≤ 50 ms per seek; memory ≤ mpv's; a kill -9 loses ≤ 2 s of the position.
#   1. shelf-playback-bench, in-process on MP3s it makes with ffmpeg (a 600 s file, three 60 s parts): decode
#      speed against `ffmpeg -f null` on the same file, play(from:) to the first samples at SDL, seek latency
#      within and across parts, CPU per second of audio at 1× and 2× (SDL's dummy driver).
#   2. The real CLI against the demo library (Sherlock, 4 parts of 60 s, signed in and downloaded):
#      - from starting `shelf listen --no-ui` to the first non-zero sample SDL's disk driver writes, read from a
#        FIFO (a driver writes zeros while the device plays an empty queue, so bytes alone say nothing), and the
#        same for mpv writing raw PCM into the FIFO (`--ao=pcm`) from 0:30 of the same part file;
#      - the most memory each holds (maximum resident set, /usr/bin/time) playing 20 s at 1× and at 1.5× through
#        SDL's dummy driver (mpv with `--ao=sdl`, so both go through the same SDL);
#      - CPU per second of audio at 1× and 2×: `--for 20s` under /usr/bin/time with the dummy driver, also net of
#        a `--for 1s` run (start-up and shut-down);
#      - kill -9: the player is killed 4 to 8 s into the sound; the loss is what was heard (from the bytes the
#        disk driver wrote after the first sound) minus the position `shelf position --json` then reads.
#   3. Issue 29's comforts: CPU at 1× with skipping silence and a 150% boost (and with loudness normalisation too),
#      beside plain playback and beside mpv at --volume=150 on the same part file, all through SDL's dummy driver.
# Usage: Benchmarks/listen.sh [runs] [--comforts]   (default: 5 runs per start-up case and of kill -9; --comforts
#        runs only section 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
play=20
. Benchmarks/common.sh
require_tools /usr/bin/time ffmpeg python3 mpv bc
prepare
swift build -c release --product shelf-playback-bench >/dev/null

echo "== in-process: shelf-playback-bench =="
"$bin/shelf-playback-bench" --work "$work/bench" --play "$play"

echo
echo "== end to end: shelf listen against the demo library =="
start_demo --part-count 4 --part-seconds 60
home="$work/home"
shelf() { "$bin/shelf" "$@" --home "$home"; }
shelf library add bench "$url" --quiet
shelf sync --quiet
echo 1234 | shelf login --username demo --password-stdin >/dev/null
shelf sync --quiet
shelf download 7d3c0002 --quiet --yes
part1=$(find "$home/books" -name 'part-001.*' | head -1)
[ -n "$part1" ] || { echo "bench: the downloaded parts are not in $home/books" >&2; exit 1; }

# CPU seconds (user + system) and wall seconds of one command playing through SDL's dummy driver: "cpu wall".
cpu_of() {
    SDL_AUDIODRIVER=dummy /usr/bin/time -f "%U %S %e" -o "$work/time" "$@" >/dev/null 2>"$work/err" \
        || { cat "$work/err" >&2; exit 1; }
    tail -1 "$work/time" | awk '{ printf "%.2f %.2f\n", $1 + $2, $3 }'
}

# Section 3: the comforts' cost at 1×, interleaved runs, medians.
comforts() {
    local listen=("$bin/shelf" listen 7d3c0002 --no-ui --from 0:00 --for "${play}s" --rewind off --home "$home")
    local -A cpu=() wall=()
    local labels=("shelf listen, plain" "shelf listen --skip-silence --volume 150"
                  "shelf listen --skip-silence --volume 150 --normalize" "mpv --volume=150 (--ao=sdl)")
    for _ in $(seq 1 "$runs"); do
        read -r c w < <(cpu_of "${listen[@]}" --no-skip-silence --no-normalize); cpu[0]+="$c "; wall[0]+="$w "
        read -r c w < <(cpu_of "${listen[@]}" --skip-silence --no-normalize --volume 150); cpu[1]+="$c "; wall[1]+="$w "
        read -r c w < <(cpu_of "${listen[@]}" --skip-silence --normalize --volume 150); cpu[2]+="$c "; wall[2]+="$w "
        read -r c w < <(cpu_of mpv --no-config --really-quiet --no-video --ao=sdl --volume=150 --volume-max=200 \
                                   --length="$play" "$part1"); cpu[3]+="$c "; wall[3]+="$w "
    done
    echo
    printf '%-54s %10s %10s %12s\n' "at 1×, ${play} s of audio, median of $runs" cpu_s wall_s "%core"
    for index in 0 1 2 3; do
        python3 - "${labels[$index]}" "${cpu[$index]}" "${wall[$index]}" <<'PY'
import statistics, sys
label, cpus, walls = sys.argv[1], list(map(float, sys.argv[2].split())), list(map(float, sys.argv[3].split()))
cpu, wall = statistics.median(cpus), statistics.median(walls)
print(f"{label:54} {cpu:10.2f} {wall:10.2f} {cpu / wall * 100:12.2f}")
PY
    done
}
if [ "${2:-}" = "--comforts" ]; then
    comforts | tee "$work/comforts.txt"
    exit 0
fi

# Starts `shelf listen` RUNS times per case with SDL's disk driver writing into a FIFO; prints, per case, the
# median and max time to the first non-zero sample, to the device opening (the FIFO opened for writing), and how
# much silence the driver wrote before the first sound (it writes one 2048-frame period every 46 ms).
python3 - "$bin/shelf" "$home" "$work/audio.fifo" "$runs" "$part1" <<'PY' | tee "$work/first.txt"
import os, statistics, subprocess, sys, threading, time
shelf, home, fifo, runs, part1 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
MPV = ["mpv", "--no-config", "--really-quiet", "--no-video", "--ao=pcm", f"--ao-pcm-file={fifo}",
       "--ao-pcm-waveheader=no", "--audio-format=s16", "--audio-samplerate=44100", "--audio-channels=stereo"]

def once(arguments, mpv=False):
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    seen = {}
    def read():
        with open(fifo, "rb", buffering=0) as audio:
            seen["open"] = time.monotonic()
            offset = 0
            while chunk := audio.read(65536):
                if "first" not in seen:
                    zeros = len(chunk) - len(chunk.lstrip(b"\0"))
                    # A sample is non-zero when either of its bytes is; silence is all zero bytes.
                    if zeros < len(chunk):
                        seen["first"] = time.monotonic()
                        seen["at_byte"] = offset + zeros
                offset += len(chunk)
    reader = threading.Thread(target=read)
    reader.start()
    environment = dict(os.environ, SDL_AUDIODRIVER="disk", SDL_DISKAUDIOFILE=fifo)
    command = ([*MPV, *arguments, "--length=1", part1] if mpv
               else [shelf, "listen", "7d3c0002", "--no-ui", *arguments, "--for", "1s", "--home", home])
    started = time.monotonic()
    result = subprocess.run(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if "open" not in seen:  # shelf never opened the device: unblock the reader
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    reader.join()
    if result.returncode != 0 or "first" not in seen:
        sys.exit(f"bench: {command[0]} {' '.join(arguments)} exited {result.returncode} "
                 f"without audio: {result.stderr.decode()}")
    # Where the first sound is in what the driver wrote: the silence before it, in ms of audio.
    return seen["first"] - started, seen["open"] - started, seen["at_byte"] / (44100 * 4)

def baseline():
    started = time.monotonic()
    subprocess.run([shelf, "show", "7d3c0002", "--home", home], check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - started

cases = [
    ("listen --from 0:30 (1×)", ["--from", "0:30", "--speed", "1"], False),
    ("mpv --start=30 (the same part file, --ao=pcm)", ["--start=30"], True),
    ("listen, resuming (pulls the position)", ["--speed", "1"], False),
    ("listen --from 1:30 (part 2) --speed 2", ["--from", "1:30", "--speed", "2"], False),
]
once(["--from", "0:00"])  # warm the page cache
once(["--start=0"], mpv=True)
print(f"{'':46} {'first_ms':>9} {'max_ms':>8} {'device_open_ms':>15} {'silence_written_ms':>19}")
for label, arguments, mpv in cases:
    firsts, opens, silences = zip(*(once(arguments, mpv) for _ in range(runs)))
    print(f"{label:46} {statistics.median(firsts) * 1000:9.0f} {max(firsts) * 1000:8.0f} "
          f"{statistics.median(opens) * 1000:15.0f} {statistics.median(silences) * 1000:19.0f}")
shows = [baseline() for _ in range(runs)]
print(f"{'(shelf show 7d3c0002: start-up baseline)':46} {statistics.median(shows) * 1000:9.0f} {max(shows) * 1000:8.0f}")
PY

# The most memory held playing 20 s through SDL's dummy driver: shelf listen (the player runs in shelf's own
# process) and mpv on the same part file, at 1× and 1.5×.
max_rss() {
    SDL_AUDIODRIVER=dummy /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>"$work/err" \
        || { cat "$work/err" >&2; exit 1; }
    tail -1 "$work/rss"
}
echo
printf '%-46s %12s\n' "" max_rss_MB
for speed in 1 1.5; do
    shelf_kb=$(max_rss "$bin/shelf" listen 7d3c0002 --no-ui --from 0:00 --speed "$speed" --for "${play}s" --home "$home")
    mpv_kb=$(max_rss mpv --no-config --really-quiet --no-video --ao=sdl --speed="$speed" --length="$play" "$part1")
    printf '%-46s %12.1f\n' "shelf listen --for ${play}s at ${speed}×" "$(echo "$shelf_kb / 1024" | bc -l)"
    printf '%-46s %12.1f\n' "mpv --length=$play at ${speed}× (--ao=sdl)" "$(echo "$mpv_kb / 1024" | bc -l)"
done | tee "$work/memory.txt"

# CPU of `shelf listen --no-ui --for SECONDS` at SPEED with the dummy driver; prints "wall user sys".
cli_cpu() {
    SDL_AUDIODRIVER=dummy /usr/bin/time -f "%e %U %S" -o "$work/time" \
        "$bin/shelf" listen 7d3c0002 --no-ui --from 0:00 --speed "$1" --for "$2s" --home "$home" >/dev/null 2>"$work/err" \
        || { cat "$work/err" >&2; exit 1; }
    tail -1 "$work/time"
}

echo
printf '%-42s %8s %8s %8s %15s %15s %8s\n' "" wall_s audio_s cpu_s "cpu_ms/audio_s" "net_ms/audio_s" "net_%core"
for speed in 1 2; do
    read -r wall1 user1 sys1 < <(cli_cpu "$speed" 1)
    read -r wall user sys < <(cli_cpu "$speed" "$play")
    python3 - "$speed" "$play" "$wall" "$user" "$sys" "$wall1" "$user1" "$sys1" <<'PY'
import sys
speed, play, wall, user, system, wall1, user1, system1 = map(float, sys.argv[1:])
audio, cpu, cpu1 = play * speed, user + system, user1 + system1
# Net of start-up: the difference between the long and the 1 s run is (play - 1) s of playing.
net = (cpu - cpu1) / ((play - 1) * speed) * 1000
core = (cpu - cpu1) / (wall - wall1) * 100
print(f"{f'listen --no-ui --for {play:.0f}s at {speed:.0f}×':42} {wall:8.2f} {audio:8.1f} {cpu:8.2f} "
      f"{cpu / audio * 1000:15.2f} {net:15.2f} {core:8.2f}")
PY
done | tee "$work/cpu.txt"

# kill -9 while playing: what is lost is what was heard minus what the store kept.
echo
python3 - "$bin/shelf" "$home" "$work/kill.fifo" "$runs" <<'PY' | tee "$work/kill.txt"
import json, os, random, signal, statistics, subprocess, sys, threading, time
shelf, home, fifo, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
BYTES_PER_SECOND = 44100 * 4
losses = []
for run in range(runs):
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    seen = {"after_first": 0}
    def read():
        with open(fifo, "rb", buffering=0) as audio:
            while chunk := audio.read(65536):
                if "first" in seen:
                    seen["after_first"] += len(chunk)
                else:
                    stripped = chunk.lstrip(b"\0")
                    if stripped:
                        seen["first"] = time.monotonic()
                        seen["after_first"] += len(stripped)
    reader = threading.Thread(target=read)
    reader.start()
    environment = dict(os.environ, SDL_AUDIODRIVER="disk", SDL_DISKAUDIOFILE=fifo)
    start = 10.0
    player = subprocess.Popen([shelf, "listen", "7d3c0002", "--no-ui", "--from", "0:10", "--speed", "1", "--home", home],
                              env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while "first" not in seen and player.poll() is None:
        time.sleep(0.01)
    time.sleep(random.uniform(4, 8))
    player.send_signal(signal.SIGKILL)
    player.wait()
    reader.join()
    heard = start + seen["after_first"] / BYTES_PER_SECOND
    report = json.loads(subprocess.run([shelf, "position", "7d3c0002", "--json", "--home", home], check=True,
                                       capture_output=True).stdout)
    saved = next(d["bookSeconds"] for d in report["devices"] if d["thisDevice"])
    losses.append(heard - saved)
    print(f"kill -9 run {run + 1}: heard {heard:6.2f} s, saved {saved:6.2f} s, lost {heard - saved:5.2f} s")
print(f"kill -9 over {runs} runs: lost median {statistics.median(losses):.2f} s, max {max(losses):.2f} s (target ≤ 2 s)")
PY

comforts | tee "$work/comforts.txt"
