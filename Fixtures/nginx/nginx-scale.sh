#!/usr/bin/env bash
# nginx on loopback for ScaleBench (`make bench-scale`): one worker that holds 10,000 kept-alive connections.
#
#   nginx-scale.sh start DIR   writes DIR/nginx.conf and DIR/www/small (64 bytes), starts nginx, prints the port
#   nginx-scale.sh stop DIR    stops the nginx started in DIR
#
# The settings that differ from nginx-loopback.sh, and why: worker_connections 12000 (each client connection
# is one; nginx's default 512 would refuse the 513th), worker_rlimit_nofile 20000 (the worker raises its own
# descriptor limit, up to this machine's hard limit), keepalive_timeout 300s and keepalive_requests 10000000
# (an idle connection must survive the whole run, and a busy one must never be closed for its request count),
# and open_file_cache with sendfile off so a request is one read and one writev (the file is tiny).
set -euo pipefail
command=${1:?usage: nginx-scale.sh start|stop DIR}
dir=${2:?usage: nginx-scale.sh start|stop DIR}
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

case "$command" in
start)
  mkdir -p "$dir/www" "$dir/tmp"
  head -c 64 /dev/zero | tr '\0' 'x' > "$dir/www/small"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  user_line=""
  [ "$(id -u)" = 0 ] && user_line="user root;"
  cat > "$dir/nginx.conf" <<CONF
$user_line
worker_processes 1;
worker_rlimit_nofile 20000;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 12000; }
http {
    access_log off;
    keepalive_requests 10000000;
    keepalive_timeout 300s;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port backlog=16384;
        location / {
            root $dir/www;
            open_file_cache max=16 inactive=300s;
            open_file_cache_valid 300s;
            sendfile off;
        }
    }
}
CONF
  for fd in /proc/$$/fd/*; do
    number=${fd##*/}
    [ "$number" -gt 2 ] 2>/dev/null && eval "exec $number>&-" 2>/dev/null || true
  done
  "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" </dev/null >>"$dir/error.log" 2>&1
  echo "$port"
  ;;
stop)
  if [ -f "$dir/nginx.pid" ]; then
    "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -s stop || true
  fi
  ;;
*)
  echo "usage: nginx-scale.sh start|stop DIR" >&2
  exit 2
  ;;
esac
