#!/usr/bin/env bash
# rate-limit.sh: how close `wire download --limit-rate RATE` stays to RATE, for `make bench` (benchmark
# layer, not a test). Downloads SIZE_MIB (default 10) from a private, unthrottled nginx on loopback with
# --limit-rate RATE (default 2M, curl's units) and prints the achieved rate over the whole transfer
# against the limit. Everything stays in a temporary directory, removed at the end; only 127.0.0.1.
#
#   WIRE=path/to/wire rate-limit.sh [SIZE_MIB] [RATE]
set -euo pipefail
wire=${WIRE:?set WIRE to the wire binary}
size_mib=${1:-10}
rate=${2:-2M}
dir=$(mktemp -d "${TORTURE_DIR:-/var/tmp}/httpwire-rate.XXXXXX")
trap '[ -f "$dir/nginx.pid" ] && nginx -p "$dir" -c "$dir/nginx.conf" -s stop 2>/dev/null; rm -rf "$dir"' EXIT
mkdir -p "$dir/www" "$dir/out"
head -c $((size_mib << 20)) /dev/urandom >"$dir/www/big.bin"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
user_line=""
[ "$(id -u)" = 0 ] && user_line="user root;"
cat >"$dir/nginx.conf" <<CONF
$user_line
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $dir/tmp-body;
    proxy_temp_path $dir/tmp-proxy;
    fastcgi_temp_path $dir/tmp-fastcgi;
    uwsgi_temp_path $dir/tmp-uwsgi;
    scgi_temp_path $dir/tmp-scgi;
    server { listen 127.0.0.1:$port; location / { root $dir/www; } }
}
CONF
nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" </dev/null >>"$dir/error.log" 2>&1
case "$rate" in
*[kK]) limit=$((${rate%?} << 10)) ;;
*[mM]) limit=$((${rate%?} << 20)) ;;
*[gG]) limit=$((${rate%?} << 30)) ;;
*) limit=$rate ;;
esac
start=$(date +%s%N)
"$wire" download "http://127.0.0.1:$port/big.bin" -o "$dir/out/big.bin" --no-progress --limit-rate "$rate"
elapsed_ns=$(($(date +%s%N) - start))
cmp -s "$dir/www/big.bin" "$dir/out/big.bin" || { echo "rate limit: file differs"; exit 1; }
python3 -c "
size, limit, ns = $((size_mib << 20)), $limit, $elapsed_ns
achieved = size / (ns / 1e9)
print(f'rate limit: {size >> 20} MiB at --limit-rate $rate ({limit} B/s): {ns / 1e9:.2f} s, '
      f'{achieved:.0f} B/s = {achieved / limit * 100:.1f}% of the limit')
"
