#!/usr/bin/env bash
# segments.sh: what `wire download --segments N` buys, for `make bench` (benchmark layer, not a test).
#
#   WIRE=path/to/wire [UNTHROTTLED_ROUNDS=15] segments.sh [SIZE_MIB] [RATE] [ROUNDS]
#
# Two private nginx servers on loopback serve the same SIZE_MIB file (default 64): one throttled per
# connection to RATE (nginx `limit_rate`, default 4m, as a server that rations each client connection),
# one unthrottled. Each round downloads the file with 1 and with 4 segments from each server, alternating,
# and the medians of ROUNDS (default 3; UNTHROTTLED_ROUNDS, default 15, for the unthrottled server, whose
# runs last ~0.1 s and vary by a quarter from run to run) are printed with their ratios: the throttled ratio is what segments
# are for (target ≥ 3.5×), the unthrottled one shows they cost nothing on a fast link (target ≥ 1.0×). Every
# download's SHA-256 is checked. The machine is shared: quote ratios within one run. Everything stays in a
# temporary directory on the disk, removed at the end; only 127.0.0.1.
set -euo pipefail
wire=${WIRE:?set WIRE to the wire binary}
size_mib=${1:-64}
rate=${2:-4m}
rounds=${3:-3}
unthrottled_rounds=${UNTHROTTLED_ROUNDS:-15}
dir=$(mktemp -d "${TORTURE_DIR:-/var/tmp}/httpwire-segments.XXXXXX")
trap '[ -f "$dir/nginx.pid" ] && nginx -p "$dir" -c "$dir/nginx.conf" -s stop 2>/dev/null; rm -rf "$dir"' EXIT
mkdir -p "$dir/www" "$dir/out"
head -c $((size_mib << 20)) /dev/urandom >"$dir/www/big.bin"
expected=$(sha256sum "$dir/www/big.bin" | cut -d' ' -f1)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
throttled=$(free_port)
unthrottled=$(free_port)
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
    access_log off;
    sendfile on;
    client_body_temp_path $dir/tmp-body;
    proxy_temp_path $dir/tmp-proxy;
    fastcgi_temp_path $dir/tmp-fastcgi;
    uwsgi_temp_path $dir/tmp-uwsgi;
    scgi_temp_path $dir/tmp-scgi;
    server {
        listen 127.0.0.1:$throttled;
        location / { root $dir/www; limit_rate $rate; sendfile_max_chunk 128k; }
    }
    server {
        listen 127.0.0.1:$unthrottled;
        location / { root $dir/www; }
    }
}
CONF
nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" </dev/null >>"$dir/error.log" 2>&1

# Seconds for one download, after checking its SHA-256 (the download checks it too, with --sha256).
run() {
  local port=$1 segments=$2 target="$dir/out/big-$1-$2.bin"
  rm -f "$target"*
  local start end
  start=$(date +%s%N)
  "$wire" download "http://127.0.0.1:$port/big.bin" -o "$target" --no-progress --segments "$segments" \
    --sha256 "$expected"
  end=$(date +%s%N)
  [ "$(sha256sum "$target" | cut -d' ' -f1)" = "$expected" ] || { echo "segments.sh: wrong bytes" >&2; exit 1; }
  rm -f "$target"
  echo $(((end - start) / 1000000))
}

declare -a t1 t4 u1 u4
for ((round = 0; round < rounds; round++)); do
  t1+=("$(run "$throttled" 1)")
  t4+=("$(run "$throttled" 4)")
done
for ((round = 0; round < unthrottled_rounds; round++)); do
  u4+=("$(run "$unthrottled" 4)")
  u1+=("$(run "$unthrottled" 1)")
done
source "$(dirname "$0")/../Shell/median.sh"
median_of() { printf '%s\n' "$@" | median; }
python3 - "$size_mib" "$rate" "$rounds/$unthrottled_rounds" "$(median_of "${t1[@]}")" "$(median_of "${t4[@]}")" \
  "$(median_of "${u1[@]}")" "$(median_of "${u4[@]}")" "${t1[*]}" "${t4[*]}" "${u1[*]}" "${u4[*]}" <<'PY'
import sys
size, rate, rounds, t1, t4, u1, u4 = sys.argv[1], sys.argv[2], sys.argv[3], *map(float, sys.argv[4:8])
runs = sys.argv[8:]
mib = int(size)
print(f"segments: {mib} MiB, medians of {rounds} rounds (ms per run: 1 seg {runs[0]} | 4 seg {runs[1]} | "
      f"unthrottled 1 seg {runs[2]} | 4 seg {runs[3]})")
print(f"  nginx limit_rate {rate} per connection: 1 connection {mib / t1 * 1000:.1f} MiB/s, "
      f"4 segments {mib / t4 * 1000:.1f} MiB/s = {t1 / t4:.2f}x")
print(f"  unthrottled loopback: 1 connection {mib / u1 * 1000:.0f} MiB/s, "
      f"4 segments {mib / u4 * 1000:.0f} MiB/s = {u1 / u4:.2f}x")
PY
