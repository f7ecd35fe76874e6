#!/usr/bin/env bash
# Navigation-catalog crawl benchmark (not a test): a calibre library of generated books (titles, authors, series and
# tags, no files, as `calibredb add --empty` makes them) served by calibre-server on loopback, whose root is a
# navigation feed. Reports, for a first sync, a re-sync and a re-sync after one book was deleted: the wall time, the
# CPU seconds, the pages read and the route taken, beside the floor: curl reading the same feed of every title's
# pages one after another (what any complete read of the catalog must fetch), and the number of feeds its author,
# series and tag sections hold (what a crawl of every section reads).
# Usage: Benchmarks/crawl.sh [books]     (default: 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
books=${1:-2000}
. Benchmarks/common.sh
require_tools curl python3 sqlite3 calibre-server calibre-debug calibredb /usr/bin/time
prepare

library="$work/library"
mkdir -p "$library" "$work/config"
export CALIBRE_CONFIG_DIRECTORY="$work/config"
calibre-debug -e Fixtures/calibre/generate-books.py "$library" "$books" >/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
calibre-server --disable-use-bonjour --enable-local-write --listen-on 127.0.0.1 --port "$port" "$library" \
    >"$work/calibre.out" 2>&1 &
calibre_pid=$!
trap 'kill $calibre_pid 2>/dev/null || true; stop_demo; rm -rf "$work"' EXIT
root="http://127.0.0.1:$port/opds"
for _ in $(seq 1 300); do curl -sf "$root" >/dev/null 2>&1 && break; sleep 0.1; done

home="$work/home"
"$bin/shelf" library add cal "$root" --home "$home" --quiet

row() { printf '%-34s %8s %8s %7s  %s\n' "$@"; }
row run wall_s cpu_s pages route

# One sync: wall and CPU seconds, pages and route from its --json summary.
sync_row() { # label
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$bin/shelf" sync --home "$home" --json >"$work/summary.json"
    python3 - "$1" "$work/time" "$work/summary.json" <<'PY'
import json, sys
label, timing, summary = sys.argv[1:]
wall, user, system = (float(x) for x in open(timing).read().split()[-3:])
s = json.load(open(summary))[0]
print(f"{label:<34} {wall:8.2f} {user + system:8.2f} {s['pages']:7d}  {s.get('crawlRoute') or 'every section'}"
      f" ({s['added']} new, {s['removed']} removed)")
PY
}

sync_row "first sync"
sync_row "re-sync, unchanged"
calibredb --with-library "http://127.0.0.1:$port#library" remove 100 >/dev/null
sync_row "re-sync, one book deleted"

# The floor: the feed of every title's pages, read one after another by curl (what any complete read fetches).
python3 - "$root" "$work/floor" <<'PY'
import re, subprocess, sys, time, urllib.parse
root, out = sys.argv[1], sys.argv[2]
start = time.monotonic()
feed = subprocess.run(["curl", "-sf", root], capture_output=True, text=True, check=True).stdout
href = re.search(r'<entry>\s*<title>By Newest</title>.*?href="([^"]+)"', feed, re.S).group(1)
url, pages = urllib.parse.urljoin(root, href.replace("&amp;", "&")), 1
while url:
    page = subprocess.run(["curl", "-sf", url], capture_output=True, text=True, check=True).stdout
    pages += 1
    following = re.search(r'rel="next"[^>]*href="([^"]+)"|href="([^"]+)"[^>]*rel="next"', page)
    url = urllib.parse.urljoin(root, (following.group(1) or following.group(2)).replace("&amp;", "&")) if following else None
open(out, "w").write(f"{time.monotonic() - start:.2f} {pages}\n")
PY
read -r floor_s floor_pages <"$work/floor"
row "floor: curl, the same feed's pages" "$floor_s" "" "$floor_pages" "root and By Newest"
# What a crawl of every section costs (what every sync read before the route): the feed marked as found lacking,
# as a sync that caught it lacking titles marks it, and the bound raised so the crawl reads every feed.
sqlite3 "$home/shelf.sqlite" "INSERT OR REPLACE INTO sync_guard (library_id, key, since) VALUES (1, 'crawl-fallback', 0)"
"$bin/shelf" library set cal --crawl-feeds 100000 --crawl-depth 10 --home "$home" >/dev/null
sync_row "every section (the route distrusted)"
echo "(calibre pages of 30 entries; $books books, then $((books - 1)))"
