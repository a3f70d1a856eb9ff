#!/usr/bin/env bash
# Where the time of a small request goes, for the two request rows of the reference harness (issue #16):
# 5,000 sequential GETs on one connection (seq) and 20,000 GETs 64 at a time (conc), each run in turn by
# curl (the harness's curl row), wire (its wire row, without the adapter's bash loop) and wrk (the server's
# ceiling: C, one epoll loop, no process start). For every run it records the wall time, the client's user
# and system CPU (GNU time) and the CPU nginx's worker spent meanwhile (/proc/PID/stat), each per request;
# then prints medians and ratios to curl.
#
# Why these columns: on one connection a request and its answer take turns, so a run's wall time is about
# the client's CPU plus the server's, per request. The client's system time is the kernel's side of its
# send, recv and epoll_wait calls, which every client pays (wrk's CPU is nearly all of that kind); its user
# time is the client's own work. The table shows what a client's user time per request would have to be for
# a given ratio to curl. With 64 in flight nginx's one worker is the limit once a client keeps it busy: its
# share of a core is printed too.
#
#   WIRE=.build/release/wire bash Sources/Benchmarks/RequestCeiling/request-ceiling.sh [ROUNDS] [ROWS]
#   (servers from: bash ../shared/bench/setup.sh; bash ../shared/bench/server.sh start)
set -euo pipefail
rounds=${1:-7}
rows=${2:-seq conc}
wire=${WIRE:?set WIRE to a release wire binary}
url=http://127.0.0.1:18080/small.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tick=$(getconf CLK_TCK)
workers=$(pgrep -f 'nginx: worker' | tr '\n' ' ')
[ -n "$workers" ] || { echo "no nginx worker: start the harness's servers first" >&2; exit 1; }

nginx_ticks() {  # user + system ticks of nginx's workers so far
  local total=0 pid
  for pid in $workers; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done
  echo "$total"
}

# wire's URL operands, built once (as the harness's adapter does before each run, untimed there too).
seq_urls=()
for ((i = 1; i <= 5000; i++)); do seq_urls+=("$url?i=$i"); done
conc_urls=()
for ((i = 1; i <= 20000; i++)); do conc_urls+=("$url?i=$i"); done

run() {  # run ROW CLIENT: one timed run; appends "wall user system nginx" per request (µs) to $work/ROW.CLIENT
  local row=$1 client=$2 count before after
  count=$([ "$row" = seq ] && echo 5000 || echo 20000)
  before=$(nginx_ticks)
  case $row.$client in
    seq.curl) /usr/bin/time -f "%e %U %S" -o "$work/time" curl -sS -f "$url?i=[1-$count]" > /dev/null ;;
    conc.curl)
      /usr/bin/time -f "%e %U %S" -o "$work/time" curl -sS -f --parallel --parallel-immediate --parallel-max 64 \
        "$url?i=[1-$count]" > /dev/null 2> /dev/null ;;  # curl's parallel meter ignores -s
    seq.wire) /usr/bin/time -f "%e %U %S" -o "$work/time" "$wire" get "${seq_urls[@]}" --no-progress > /dev/null ;;
    conc.wire)
      /usr/bin/time -f "%e %U %S" -o "$work/time" "$wire" get "${conc_urls[@]}" --parallel 64 --no-progress > /dev/null ;;
    seq.wrk | conc.wrk)
      local threads connections
      threads=$([ "$row" = seq ] && echo 1 || echo 2)
      connections=$([ "$row" = seq ] && echo 1 || echo 64)
      /usr/bin/time -f "%e %U %S" -o "$work/time" wrk -t"$threads" -c"$connections" -d3s "$url" > "$work/wrk"
      count=$(awk '/requests in/ {print $1}' "$work/wrk") ;;
  esac
  after=$(nginx_ticks)
  read -r wall user system < "$work/time"
  awk -v n="$count" -v w="$wall" -v u="$user" -v s="$system" -v t="$((after - before))" -v hz="$tick" \
    'BEGIN {printf "%.1f %.1f %.1f %.1f\n", w / n * 1e6, u / n * 1e6, s / n * 1e6, t / hz / n * 1e6}' \
    >> "$work/$row.$client"
}

source "$(dirname "$0")/../Shell/median.sh"
column_median() { awk -v c="$2" '{print $c}' "$1" | median; }  # column_median FILE COLUMN

for round in $(seq "$rounds"); do
  for row in $rows; do
    for client in curl wire wrk; do run "$row" "$client"; done
  done
  echo "round $round done"
done

for row in $rows; do
  echo
  echo "$row: medians of $rounds rounds, µs per request"
  printf '%-6s %9s %8s %8s %8s %8s %9s\n' client wall user system nginx "÷ curl" "nginx busy"
  curl_wall=$(column_median "$work/$row.curl" 1)
  for client in curl wire wrk; do
    file="$work/$row.$client"
    wall=$(column_median "$file" 1)
    nginx=$(column_median "$file" 4)
    awk -v name="$client" -v w="$wall" -v u="$(column_median "$file" 2)" -v s="$(column_median "$file" 3)" \
      -v g="$nginx" -v c="$curl_wall" \
      'BEGIN {printf "%-6s %9.1f %8.1f %8.1f %8.1f %7.2fx %8.0f%%\n", name, w, u, s, g, c / w, g / w * 100}'
  done
  if [ "$row" = seq ]; then
    # On one connection: wall ≈ client CPU + nginx CPU. nginx spends least per request when it is never idle
    # between requests (under wrk); with that, and wire's system time as measured, 2.0x curl leaves wire this
    # much user time per request.
    awk -v c="$curl_wall" -v s="$(column_median "$work/seq.wire" 3)" -v g="$(column_median "$work/seq.wrk" 4)" \
      -v u="$(column_median "$work/seq.wire" 2)" \
      'BEGIN {printf "2.0x curl is %.1f µs a request: with nginx at its cheapest (%.1f, under wrk) and wire'"'"'s system time (%.1f), wire'"'"'s user time would have to be %.1f µs (it is %.1f)\n", c / 2, g, s, c / 2 - s - g, u}'
  fi
done
