#!/usr/bin/env bash
# Playback benchmark (not a test) for `shelf listen`, issue 5. Targets: ≤ 1% of a core at 1×, ≤ 200 ms from
# `listen` to the first audio of a downloaded book, ≤ 50 ms per seek within and across parts.
#   1. shelf-playback-bench, in-process on MP3s it makes with ffmpeg (a 600 s file, three 60 s parts): decode
#      speed against `ffmpeg -f null` on the same file, play(from:) to the first samples at SDL, seek latency
#      within and across parts, CPU per second of audio at 1× and 2× (SDL's dummy driver).
#   2. The real CLI against the demo library (Sherlock, 4 parts of 60 s, signed in and downloaded):
#      - from starting `shelf listen --no-ui` to the first non-zero sample SDL's disk driver writes, read from a
#        FIFO (the driver writes zeros while the device is paused, so bytes alone say nothing);
#      - CPU per second of audio at 1× and 2×: `--for 20s` under /usr/bin/time with the dummy driver, also net of
#        a `--for 1s` run (start-up and shut-down).
# Usage: Benchmarks/listen.sh [runs]     (default: 5 CLI runs per start-up case)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
play=20
. Benchmarks/common.sh
require_tools /usr/bin/time ffmpeg python3
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

# Starts `shelf listen` RUNS times per case with SDL's disk driver writing into a FIFO; prints, per case, the
# median and max time to the first non-zero sample, to the device opening (the FIFO opened for writing), and how
# much silence the driver wrote before the first sound (it writes one 2048-frame period every 46 ms).
python3 - "$bin/shelf" "$home" "$work/audio.fifo" "$runs" <<'PY' | tee "$work/first.txt"
import os, statistics, subprocess, sys, threading, time
shelf, home, fifo, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def once(arguments):
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
    started = time.monotonic()
    result = subprocess.run([shelf, "listen", "7d3c0002", "--no-ui", *arguments, "--for", "1s", "--home", home],
                            env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if "open" not in seen:  # shelf never opened the device: unblock the reader
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    reader.join()
    if result.returncode != 0 or "first" not in seen:
        sys.exit(f"bench: shelf listen {' '.join(arguments)} exited {result.returncode} "
                 f"without audio: {result.stderr.decode()}")
    # Where the first sound is in what the driver wrote: the silence before it, in ms of audio.
    return seen["first"] - started, seen["open"] - started, seen["at_byte"] / (44100 * 4)

def baseline():
    started = time.monotonic()
    subprocess.run([shelf, "show", "7d3c0002", "--home", home], check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - started

cases = [
    ("listen --from 0:30 (1×)", ["--from", "0:30", "--speed", "1"]),
    ("listen, resuming (pulls the position)", ["--speed", "1"]),
    ("listen --from 1:30 (part 2) --speed 2", ["--from", "1:30", "--speed", "2"]),
]
once(["--from", "0:00"])  # warm the page cache
print(f"{'':42} {'first_ms':>9} {'max_ms':>8} {'device_open_ms':>15} {'silence_written_ms':>19}")
for label, arguments in cases:
    firsts, opens, silences = zip(*(once(arguments) for _ in range(runs)))
    print(f"{label:42} {statistics.median(firsts) * 1000:9.0f} {max(firsts) * 1000:8.0f} "
          f"{statistics.median(opens) * 1000:15.0f} {statistics.median(silences) * 1000:19.0f}")
shows = [baseline() for _ in range(runs)]
print(f"{'(shelf show 7d3c0002: start-up baseline)':42} {statistics.median(shows) * 1000:9.0f} {max(shows) * 1000:8.0f}")
PY

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
