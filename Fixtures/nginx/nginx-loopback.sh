#!/usr/bin/env bash
# nginx on loopback for HTTPWire's interop tests and benchmarks.
#
#   nginx-loopback.sh start DIR [CERT KEY]   writes DIR/nginx.conf, starts nginx, prints "PLAIN_PORT TLS_PORT"
#   nginx-loopback.sh stop DIR               stops the nginx started in DIR
#
# Files to serve go in DIR/www (created if missing). Everything nginx writes (pid, logs, temp files) stays
# in DIR, so a run never touches the system nginx. The plain server also listens on the Unix-domain socket
# DIR/nginx.sock. Locations:
#   /            static files, sendfile on, ETag and Range as nginx does them
#   /fast/       the same files for the benchmarks' small-request rows, answered with the fewest system
#                calls: open_file_cache keeps the descriptor and its fstat, and with sendfile and tcp_nopush
#                off a small file goes out as one read and one writev (at / every request opens, fstats,
#                corks, writevs the head, sendfiles the body, uncorks and closes: 9 calls). A location of its
#                own, because tests that replace a file under / must never be served a cached descriptor
#   /gzip/       the same files gzip-compressed on the fly: nginx sends them chunked (no Content-Length)
#   /upload/     PUT stores the body (dav), so nginx reads the whole body before answering; it reads in
#                1 MiB buffers (client_body_buffer_size), not the default 16 KiB, so that the sink writing its
#                temp file is not what an upload benchmark measures (the same for every client)
set -euo pipefail
command=${1:?usage: nginx-loopback.sh start|stop DIR [CERT KEY]}
dir=${2:?usage: nginx-loopback.sh start|stop DIR [CERT KEY]}
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

case "$command" in
start)
  mkdir -p "$dir/www" "$dir/upload" "$dir/tmp"
  plain_port=$(free_port)
  tls_port=0
  tls_server=""
  if [ $# -ge 4 ]; then
    tls_port=$(free_port)
    tls_server="
    server {
        listen 127.0.0.1:$tls_port ssl;
        ssl_certificate $3;
        ssl_certificate_key $4;
        ssl_protocols TLSv1.2 TLSv1.3;
        location / { root $dir/www; }
    }"
  fi
  # As root, nginx would run its worker as nobody, who cannot read a private temp dir: keep our own user.
  user_line=""
  [ "$(id -u)" = 0 ] && user_line="user root;"
  # The same server on a Unix-domain socket, for ClientConfiguration.unixSocketPath's interop test, when
  # the path fits sun_path (107 bytes): a longer one would stop nginx from starting at all.
  unix_listen=""
  [ ${#dir} -le 90 ] && unix_listen="listen unix:$dir/nginx.sock;"
  cat > "$dir/nginx.conf" <<CONF
$user_line
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$plain_port;
        $unix_listen
        client_max_body_size 0;
        location / { root $dir/www; }
        location /fast/ {
            alias $dir/www/;
            open_file_cache max=64 inactive=60s;
            open_file_cache_valid 60s;
            sendfile off;
            tcp_nopush off;
        }
        location /gzip/ {
            alias $dir/www/;
            gzip on;
            gzip_min_length 0;
            gzip_types *;
        }
        location /events/ {
            alias $dir/www/;
            types { }
            default_type text/event-stream;
        }
        location /upload/ {
            root $dir;
            dav_methods PUT;
            create_full_put_path on;
            client_body_buffer_size 1m;
        }
    }$tls_server
}
CONF
  # nginx keeps the descriptors it started with: point the standard ones at the log and close the rest, so
  # a caller that reads our output to its end (or watches us exit) is not kept waiting by the daemon.
  for fd in /proc/$$/fd/*; do
    number=${fd##*/}
    [ "$number" -gt 2 ] 2>/dev/null && eval "exec $number>&-" 2>/dev/null || true
  done
  rm -f "$dir/nginx.sock"  # left by an nginx that did not stop cleanly: bind would fail
  "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" </dev/null >>"$dir/error.log" 2>&1
  echo "$plain_port $tls_port"
  ;;
stop)
  if [ -f "$dir/nginx.pid" ]; then
    "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -s stop || true
  fi
  ;;
*)
  echo "usage: nginx-loopback.sh start|stop DIR [CERT KEY]" >&2
  exit 2
  ;;
esac
