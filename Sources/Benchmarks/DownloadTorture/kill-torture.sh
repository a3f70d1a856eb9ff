#!/usr/bin/env bash
# kill-torture.sh: the SIGKILL torture run of issue #15, for `make bench` (benchmark layer, not a test).
#
#   WIRE=path/to/wire [WIRE_ARGS="--segments 4"] kill-torture.sh [SIZE_MIB] [KILLS] [RATE]
#
# WIRE_ARGS are added to every `wire download` (the segmented run of `make bench` passes `--segments 4`
# with a quarter of the rate per connection, so the download lasts as long as the plain one).
# Serves a SIZE_MIB file (default 200) from a private nginx on loopback, throttled per connection to RATE
# (nginx `limit_rate`, default 8m: the 20 kills below, 0.2–1.5 s apart, take ~17 s, so the download must
# last longer than that), and runs `wire download URL -o FILE` again and again, killing it with SIGKILL
# after a random 0.2–1.5 s (KILLS times, default 20), then once more to the end. It prints the final
# SHA-256 check and the bytes nginx sent in total — the sum of `$bytes_sent` over its access log, heads
# included — against the file size: what was fetched twice because a kill lost it. Everything stays in a
# temporary directory on the disk (not tmpfs, so fdatasync costs what it costs), removed at the end.
# It must not touch anything outside that directory, and it only talks to 127.0.0.1.
set -euo pipefail
wire=${WIRE:?set WIRE to the wire binary}
size_mib=${1:-200}
kills=${2:-20}
rate=${3:-8m}
dir=$(mktemp -d "${TORTURE_DIR:-/var/tmp}/httpwire-torture.XXXXXX")
trap '[ -f "$dir/nginx.pid" ] && nginx -p "$dir" -c "$dir/nginx.conf" -s stop 2>/dev/null; [ -n "${KEEP:-}" ] && cp "$dir/access.log" "$dir/kills.log" "$dir/wire.log" "$KEEP/" 2>/dev/null; rm -rf "$dir"' EXIT
mkdir -p "$dir/www" "$dir/out"
head -c $((size_mib << 20)) /dev/urandom >"$dir/www/big.bin"
expected=$(sha256sum "$dir/www/big.bin" | cut -d' ' -f1)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
user_line=""
[ "$(id -u)" = 0 ] && user_line="user root;"
cat >"$dir/nginx.conf" <<CONF
$user_line
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
    log_format sent '\$status \$bytes_sent \$http_range';
    access_log $dir/access.log sent;
    sendfile on;
    client_body_temp_path $dir/tmp-body;
    proxy_temp_path $dir/tmp-proxy;
    fastcgi_temp_path $dir/tmp-fastcgi;
    uwsgi_temp_path $dir/tmp-uwsgi;
    scgi_temp_path $dir/tmp-scgi;
    server {
        listen 127.0.0.1:$port;
        # limit_rate alone sends sendfile_max_chunk (2 MiB) bursts four times a second; 128 KiB chunks make
        # the stream smooth like a real link's, so a kill can land while bytes are in flight.
        location / { root $dir/www; limit_rate $rate; sendfile_max_chunk 128k; }
    }
}
CONF
nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" </dev/null >>"$dir/error.log" 2>&1
url="http://127.0.0.1:$port/big.bin"
target="$dir/out/big.bin"

killed=0
started=$(date +%s%N)
while [ "$killed" -lt "$kills" ]; do
  # shellcheck disable=SC2086 # WIRE_ARGS is a list of words
  "$wire" download "$url" -o "$target" --no-progress ${WIRE_ARGS:-} 2>>"$dir/wire.log" &
  pid=$!
  delay_ms=$((200 + RANDOM % 1301))
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  if ! kill -0 "$pid" 2>/dev/null; then wait "$pid" || true; break; fi
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  # What the kill left: the part file's size, and what the mark and the record count.
  count() { sed -n 's/^committed-bytes: //p' "$1" 2>/dev/null || true; }
  echo "$(stat -c %s "$target.part" 2>/dev/null || echo -) mark=$(count "$target.part.mark") record=$(count "$target.part.resume")" >>"$dir/kills.log"
  # With KEEP: how many bytes past each segment's count are already in the file (compared with the source).
  # Bytes there were written but not yet counted by the mark when the kill came; what the kill cost beyond
  # them was still in flight (in socket buffers, or not yet moved into the file). A byte or two past a count
  # may match the source by chance.
  [ -n "${KEEP:-}" ] && python3 - "$dir/www/big.bin" "$target" >>"$dir/kills.log" <<'PY'
import os, sys
source, target = sys.argv[1:]
path = target + ".part.mark" if os.path.exists(target + ".part.mark") else target + ".part.resume"
segments, committed = [], 0
for line in open(path, errors="replace"):
    if line.startswith("segment: "):
        span, count = line[9:].split()
        first, last = map(int, span.split("-"))
        segments.append((first, last + 1, int(count)))
    elif line.startswith("committed-bytes: "):
        committed = int(line.split()[1])
segments = segments or [(0, os.path.getsize(source), committed)]
beyond = []
with open(source, "rb") as want, open(target + ".part", "rb") as have:
    for first, end, count in segments:
        position = first + count
        while position < end:
            want.seek(position); have.seek(position)
            a, b = want.read(min(4096, end - position)), have.read(min(4096, end - position))
            same = next((i for i in range(len(a)) if i >= len(b) or a[i] != b[i]), len(a))
            position += same
            if same < len(a): break
        beyond.append(position - first - count)
print(f"  in the file past the {os.path.basename(path).split('.')[-1]}'s counts: {beyond} = {sum(beyond)} bytes")
PY
  killed=$((killed + 1))
done
# shellcheck disable=SC2086
[ -f "$target" ] || "$wire" download "$url" -o "$target" --no-progress ${WIRE_ARGS:-} 2>>"$dir/wire.log"
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
elapsed=$(printf '%d.%d' $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100)))
actual=$(sha256sum "$target" | cut -d' ' -f1)
# nginx writes a request's log line when it ends; a killed client's connection ends when the kernel closes it.
sleep 1
sent=$(awk '{ total += $2 } END { print total + 0 }' "$dir/access.log")
requests=$(wc -l <"$dir/access.log")
file_bytes=$((size_mib << 20))
python3 - "$sent" "$file_bytes" "$killed" "$requests" "$elapsed" "$expected" "$actual" <<'PY'
import sys
sent, size, killed, requests, elapsed, expected, actual = sys.argv[1:]
sent, size = int(sent), int(size)
print(f"kill torture{' ' + __import__('os').environ.get('WIRE_ARGS', '') if __import__('os').environ.get('WIRE_ARGS') else ''}: {size >> 20} MiB, {killed} SIGKILLs, {requests} requests, {elapsed} s")
print(f"  sha256 {'matches' if expected == actual else 'DIFFERS: ' + actual}")
print(f"  nginx sent {sent} bytes = {sent / size:.4f}x the file ({(sent - size) / size * 100:.2f}% over, "
      f"{(sent - size) / max(1, int(killed)) / 1e3:.0f} kB per kill)")
sys.exit(0 if expected == actual else 1)
PY
