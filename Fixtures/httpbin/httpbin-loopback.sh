#!/usr/bin/env bash
# httpbin (the PyPI package) on loopback for HTTPWire's interop tests: a real, independently written server
# for cookies (/cookies, /cookies/set), content codings (/gzip, /deflate) and the rest of its endpoints.
#
#   httpbin-loopback.sh start DIR    starts httpbin with its pid, port and log files in DIR; prints its port
#   httpbin-loopback.sh stop DIR     stops the httpbin started in DIR
#
# The server runs from the virtual environment `make deps` creates (HTTPWIRE_HTTPBIN_VENV, default
# .build/httpbin-venv in the repository) and listens on 127.0.0.1 only, on a port the kernel chose.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${HTTPWIRE_HTTPBIN_VENV:-$here/../../.build/httpbin-venv}
command=${1:?usage: httpbin-loopback.sh start DIR | stop DIR}
dir=${2:?usage: httpbin-loopback.sh start DIR | stop DIR}

case "$command" in
start)
  if [ ! -x "$venv/bin/python" ]; then
    echo "httpbin-loopback.sh: no httpbin environment at $venv (run: make deps)" >&2; exit 1
  fi
  mkdir -p "$dir"; rm -f "$dir/port"
  "$venv/bin/python" "$here/serve.py" "$dir"
  # The import of Flask and httpbin takes about half a second on a quiet machine; allow 60 s on a busy one.
  for _ in $(seq 1 1200); do
    if [ -s "$dir/port" ]; then cat "$dir/port"; echo; exit 0; fi
    sleep 0.05
  done
  echo "httpbin-loopback.sh: httpbin did not start; its log:" >&2; cat "$dir/httpbin.log" >&2 || true; exit 1
  ;;
stop)
  if [ -f "$dir/httpbin.pid" ]; then
    pid=$(cat "$dir/httpbin.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/httpbin.pid"
  fi
  ;;
*) echo "usage: httpbin-loopback.sh start DIR | stop DIR" >&2; exit 2 ;;
esac
