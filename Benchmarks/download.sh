#!/usr/bin/env bash
# Download benchmark (not a test): one audiobook of 20 parts of 10 MB (200 MB) from the demo library on loopback.
#   1. shelf download --parallel 4 vs `aria2c -j4` vs `curl --parallel --parallel-max 4` (alone, and followed by an
#      fsync of each part, as shelf makes each part durable), same URLs, wall and CPU.
#   2. With the server capping each connection's bandwidth, shelf with 1 connection vs 4: the speed-up; and shelf
#      beside aria2c at 4 and at 16 connections.
#   3. One file of 200 MB: shelf (byte ranges over its connections) vs `aria2c -x4 -s4` and curl + fsync, uncapped
#      and capped per connection.
# Usage: Benchmarks/download.sh [cap_bytes_per_second]   (default cap: 8 MB/s per connection)
set -euo pipefail
cd "$(dirname "$0")/.."
cap="${1:-8388608}"
. Benchmarks/common.sh
require_tools /usr/bin/time curl aria2c python3 bc
prepare
start_demo --part-bytes 10485760 --part-count 20
book="urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001"   # open access: no sign-in needed
home="$work/home"
"$bin/shelf" library add bench "$url" --home "$home" --quiet
"$bin/shelf" sync --home "$home" --quiet
# Warm the server's audio and take the part URLs from the manifest.
curl -sf "${url}works/${book}/fulfill/open-access" >"$work/manifest.json"
python3 -c "import json,sys; [print(p['href']) for p in json.load(open(sys.argv[1]))['readingOrder']]" "$work/manifest.json" >"$work/urls.txt"
parts=$(wc -l <"$work/urls.txt")

measure() { # label command...
    local label=$1; shift
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    read -r wall user system <"$work/time"
    printf '%-34s %8.2f %8.2f %10.1f\n' "$label" "$wall" "$(echo "$user + $system" | bc)" "$(echo "209715200 / $wall / 1048576" | bc -l)"
}

echo "book: $parts parts, 200 MB, from $url"
curl_args=()
n=0
while read -r part; do n=$((n + 1)); curl_args+=(-o "$work/curl/part-$n.mp3" "$part"); done <"$work/urls.txt"
mkdir -p "$work/aria" "$work/curl"
# The floor for shelf, which makes each part durable before it counts as downloaded: curl, then fsync(2) of each
# part (coreutils sync with file names).
printf '#!/bin/sh\ncurl -sf --parallel --parallel-max 4 "$@" && exec sync %s/curl/part-*.mp3\n' "$work" >"$work/curl-fsync"
chmod +x "$work/curl-fsync"
printf '%-34s %8s %8s %10s\n' tool wall_s cpu_s MB/s
# Three rounds, the tools taking turns, so a passing load on the machine does not favour one of them.
for round in 1 2 3; do
    "$bin/shelf" archive 7d3c0001 --home "$home" --quiet 2>/dev/null || true
    measure "shelf download --parallel 4" "$bin/shelf" download 7d3c0001 --home "$home" --parallel 4 --quiet --yes
    rm -rf "$work/aria"/* "$work/curl"/*
    measure "aria2c -j4" aria2c -q -j4 -x1 --allow-overwrite=true --auto-file-renaming=false -d "$work/aria" -i "$work/urls.txt"
    measure "curl --parallel --parallel-max 4" curl -sf --parallel --parallel-max 4 "${curl_args[@]}"
    rm -rf "$work/curl"/*
    measure "curl as above, then fsync of parts" "$work/curl-fsync" "${curl_args[@]}"
done
echo "(shelf wrote $(find "$home/books" -name 'part-*' -printf '%s\n' | awk '{s+=$1} END {print s}') bytes in $(find "$home/books" -name 'part-*' | wc -l) parts)"
cmp -s "$work/aria/$(basename "$(head -1 "$work/urls.txt" | cut -d'?' -f1)")" "$work/curl/part-1.mp3" && echo "(aria2c and curl parts identical)"

echo
echo "with the server capping each connection at $((cap / 1048576)) MB/s:"
curl -sf -X POST "${url}_demo/switches" -H 'Content-Type: application/json' \
    -d "{\"audio\": {\"*\": {\"bytesPerSecond\": $cap}}}" >/dev/null
printf '%-34s %8s %8s %10s\n' tool wall_s cpu_s MB/s
"$bin/shelf" archive 7d3c0001 --home "$home" --quiet
measure "shelf download --parallel 1" "$bin/shelf" download 7d3c0001 --home "$home" --parallel 1 --quiet --yes
one=$(cut -d' ' -f1 "$work/time")
"$bin/shelf" archive 7d3c0001 --home "$home" --quiet
measure "shelf download --parallel 4" "$bin/shelf" download 7d3c0001 --home "$home" --parallel 4 --quiet --yes
four=$(cut -d' ' -f1 "$work/time")
echo "speed-up from 1 to 4 connections: $(echo "scale=2; $one / $four" | bc)x"
# aria2c beside shelf at the same number of connections: 4 (a part each), and 16 (aria2c: 4 parts at once, each
# in 4 ranges of at least 1 MB; shelf: 16 parts at once, then the last ones in ranges over the idle connections).
for round in 1 2; do
    rm -rf "$work/aria"/*
    measure "aria2c -j4 -x1" aria2c -q -j4 -x1 --allow-overwrite=true --auto-file-renaming=false -d "$work/aria" -i "$work/urls.txt"
    "$bin/shelf" archive 7d3c0001 --home "$home" --quiet
    measure "shelf download --parallel 4" "$bin/shelf" download 7d3c0001 --home "$home" --parallel 4 --quiet --yes
    rm -rf "$work/aria"/*
    measure "aria2c -j4 -x4 -s4 -k1M" aria2c -q -j4 -x4 -s4 -k1M --allow-overwrite=true --auto-file-renaming=false \
        -d "$work/aria" -i "$work/urls.txt"
    "$bin/shelf" archive 7d3c0001 --home "$home" --quiet
    measure "shelf download --parallel 16" "$bin/shelf" download 7d3c0001 --home "$home" --parallel 16 --quiet --yes
done

# 3. One file of 200 MB (a single-file audiobook, as calibre serves an m4b): shelf splits it into byte ranges over
#    its connections; aria2c -x4 -s4 does the same. Uncapped, and with the server capping each connection.
stop_demo
start_demo --part-bytes 209715200 --part-count 1
home="$work/home-one"
"$bin/shelf" library add bench "$url" --home "$home" --quiet
"$bin/shelf" sync --home "$home" --quiet
curl -sf "${url}works/${book}/fulfill/open-access" >"$work/manifest.json"
one_url=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['readingOrder'][0]['href'])" "$work/manifest.json")
printf '#!/bin/sh\ncurl -sf -o %s/curl/one.mp3 "$1" && exec sync %s/curl/one.mp3\n' "$work" "$work" >"$work/curl-one"
chmod +x "$work/curl-one"
printf '#!/bin/sh\nexec aria2c -q -x4 -s4 --allow-overwrite=true --auto-file-renaming=false -d %s/aria -o one.mp3 "$1"\n' "$work" >"$work/aria-one"
chmod +x "$work/aria-one"
echo
echo "one file of 200 MB, uncapped:"
printf '%-34s %8s %8s %10s\n' tool wall_s cpu_s MB/s
for round in 1 2 3; do
    "$bin/shelf" archive 7d3c0001 --home "$home" --quiet 2>/dev/null || true
    measure "shelf download --parallel 4" "$bin/shelf" download 7d3c0001 --home "$home" --parallel 4 --quiet --yes
    rm -rf "$work/aria"/* "$work/curl"/*
    measure "aria2c -x4 -s4" "$work/aria-one" "$one_url"
    measure "curl, then fsync" "$work/curl-one" "$one_url"
done
cmp -s "$work/aria/one.mp3" "$work/curl/one.mp3" && cmp -s "$work/curl/one.mp3" "$(find "$home/books" -name 'part-1*' | head -1)" \
    && echo "(shelf, aria2c and curl files identical)"
echo
echo "one file of 200 MB, the server capping each connection at $((cap / 1048576)) MB/s:"
curl -sf -X POST "${url}_demo/switches" -H 'Content-Type: application/json' \
    -d "{\"audio\": {\"*\": {\"bytesPerSecond\": $cap}}}" >/dev/null
printf '%-34s %8s %8s %10s\n' tool wall_s cpu_s MB/s
for round in 1 2; do
    "$bin/shelf" archive 7d3c0001 --home "$home" --quiet
    measure "shelf download --parallel 4" "$bin/shelf" download 7d3c0001 --home "$home" --parallel 4 --quiet --yes
    rm -rf "$work/aria"/*
    measure "aria2c -x4 -s4" "$work/aria-one" "$one_url"
done
"$bin/shelf" archive 7d3c0001 --home "$home" --quiet
measure "shelf download --parallel 1" "$bin/shelf" download 7d3c0001 --home "$home" --parallel 1 --quiet --yes
