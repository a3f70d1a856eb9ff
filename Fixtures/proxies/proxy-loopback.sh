#!/usr/bin/env bash
# Real proxies on loopback for HTTPWire's proxy tests: tinyproxy (HTTP and CONNECT) and dante (SOCKS5).
#
#   proxy-loopback.sh start tinyproxy DIR [USER PASSWORD]   HTTP proxy; with USER, Basic auth is required
#   proxy-loopback.sh start dante DIR [username]            SOCKS5 proxy; "username" requires RFC 1929 auth
#   proxy-loopback.sh stop DIR                              stops the proxy started in DIR
#
# `start` writes DIR/proxy.conf, starts the proxy as a daemon with its pid and log files in DIR, waits until
# it accepts connections and prints its port. Both listen on 127.0.0.1 only and accept clients from
# 127.0.0.0/8 only; nothing touches the system's own configuration or services. Packages: tinyproxy-bin
# and dante-server (`make deps` installs them). dante's RFC 1929 method checks the *system's* password
# database, so the tests use it only to see credentials refused; accepted credentials are tested against an
# in-process SOCKS5 server (Tests/HTTPWireTests/Support/SOCKS5TestServer.swift).
set -euo pipefail
command=${1:?usage: proxy-loopback.sh start tinyproxy|dante DIR ... | stop DIR}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Runs "$@" as a daemon would want to start: an empty signal mask, default dispositions, stdio on /dev/null
# and no other inherited descriptor. A test runner starts this script from a thread that blocks most
# signals, and a child inherits that mask (a daemon started so never sees SIGTERM, and `stop` could not
# end it); Foundation's Process also hands the child one end of a socket pair and learns of the child's
# exit when every copy of it is closed, so a daemon that keeps it (tinyproxy does) makes the test's wait
# for this script last as long as the daemon.
detached() {
  python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_SETMASK, [])
for s in (signal.SIGPIPE, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD):
    signal.signal(s, signal.SIG_DFL)
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
os.closerange(3, os.sysconf("SC_OPEN_MAX"))
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# Stops the daemon whose pid is in $1/proxy.pid, if any: SIGTERM, then SIGKILL after 5 s (dante's children
# end when their parent does).
stop_daemon() {
  if [ -f "$1/proxy.pid" ]; then
    pid=$(cat "$1/proxy.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$1/proxy.pid"
  fi
}

# Waits up to 10 s until 127.0.0.1:$1 accepts a connection *and* the daemon of $2/proxy.pid is alive: the
# port was free when chosen, but another program may have taken it before the daemon bound it, and then the
# listener answering is not ours.
wait_until_listening() {
  for _ in $(seq 1 200); do
    if python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1',$1)))" 2>/dev/null \
      && [ -f "$2/proxy.pid" ] && kill -0 "$(cat "$2/proxy.pid")" 2>/dev/null; then
      return 0
    fi
    sleep 0.05
  done
  return 1
}

case "$command" in
start)
  kind=${2:?kind}; dir=${3:?dir}
  mkdir -p "$dir"
  # Up to three ports: a chosen port can be taken by someone else before the daemon binds it.
  for attempt in 1 2 3; do
  port=$(free_port)
  case "$kind" in
  tinyproxy)
    # No ConnectPort line: CONNECT is allowed to every port (the test origins listen on random ones).
    # The log level Connect records each request line, which the tests read to see what reached the proxy.
    cat > "$dir/proxy.conf" <<CONF
Port $port
Listen 127.0.0.1
Timeout 30
LogFile "$dir/proxy.log"
LogLevel Connect
PidFile "$dir/proxy.pid"
MaxClients 64
Allow 127.0.0.1
CONF
    if [ $# -ge 5 ]; then echo "BasicAuth $4 $5" >> "$dir/proxy.conf"; fi
    detached tinyproxy -c "$dir/proxy.conf"
    ;;
  dante)
    method=${4:-none}
    # dante changes user only when started as root; as another user these lines must be absent.
    users=""
    if [ "$(id -u)" = 0 ]; then users=$'user.privileged: root\nuser.unprivileged: nobody'; fi
    # external: lo, so that a name the proxy resolves (socks5h) may give an IPv4 or an IPv6 loopback address.
    cat > "$dir/proxy.conf" <<CONF
logoutput: $dir/proxy.log
internal: 127.0.0.1 port = $port
external: lo
clientmethod: none
socksmethod: $method
$users
client pass {
    from: 127.0.0.0/8 to: 0.0.0.0/0
}
socks pass {
    from: 127.0.0.0/8 to: 0.0.0.0/0
    command: connect
    log: connect error
}
CONF
    detached danted -f "$dir/proxy.conf" -p "$dir/proxy.pid" -D
    ;;
  *) echo "proxy-loopback.sh: unknown proxy $kind" >&2; exit 2 ;;
  esac
  if wait_until_listening "$port" "$dir"; then
    echo "$port"
    exit 0
  fi
  stop_daemon "$dir"
  echo "proxy-loopback.sh: $kind did not listen on port $port (attempt $attempt)" >&2
  done
  exit 1
  ;;
stop)
  stop_daemon "${2:?dir}"
  ;;
*) echo "usage: proxy-loopback.sh start tinyproxy|dante DIR ... | stop DIR" >&2; exit 2 ;;
esac
