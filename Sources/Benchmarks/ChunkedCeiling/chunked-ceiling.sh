#!/usr/bin/env bash
# The chunked row's ceiling beside curl and wire in one run (issue #16). Builds chunked-ceiling.c, then for
# ROUNDS rounds downloads the reference harness's 1 GiB chunked stream with, in turn: curl (the harness's curl
# row), wire (its wire row), and the three minimal clients of chunked-ceiling.c (discard: the socket alone;
# one-thread: recv and pwritev on one thread; two-threads: a reader and a disk writer, HTTPWire's shape).
# Prints each run's wall time, then medians, MB/s and ratios to curl; the first round checks each client's
# file against the source.
#
#   WIRE=.build/release/wire bash Sources/Benchmarks/ChunkedCeiling/chunked-ceiling.sh [ROUNDS]
#   (servers from: bash ../shared/bench/setup.sh; bash ../shared/bench/server.sh start)
set -euo pipefail
rounds=${1:-7}
wire=${WIRE:?set WIRE to a release wire binary}
url=http://127.0.0.1:18081/big.bin
source_file=/tmp/wirebench/fixtures/big.bin
out=/dev/shm/chunked-ceiling.bin
work=$(mktemp -d)
trap 'rm -rf "$work" "$out"' EXIT
cc -O2 -Wall -Wextra -pthread "$(dirname "$0")/chunked-ceiling.c" -o "$work/ceiling"
size=$(stat -c %s "$source_file")

run() {  # run NAME COMMAND...: one timed download, checked, its wall time appended to $work/NAME
  local name=$1
  shift
  rm -f "$out"
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" > /dev/null
  if [ "$round" = 1 ] && [ "$name" != discard ]; then  # once per client: the bytes are right
    cmp -s "$out" "$source_file" || { echo "$name: the file differs from $source_file" >&2; exit 1; }
  fi
  read -r wall user system < "$work/time"
  echo "$wall" >> "$work/$name"
  printf '%-12s %s s (CPU %s + %s)\n' "$name" "$wall" "$user" "$system"
}

clients=${CLIENTS:-curl wire discard one-thread two-threads}
for round in $(seq "$rounds"); do
  echo "round $round"
  for client in $clients; do
    case $client in
      curl) run curl curl -s -o "$out" "$url" ;;
      wire) run wire "$wire" download "$url" -o "$out" --no-progress ;;
      *) run "$client" "$work/ceiling" "$client" 127.0.0.1 18081 /big.bin "$out" ;;
    esac
  done
done

source "$(dirname "$0")/../Shell/median.sh"
curl_median=$(median < "$work/curl")
echo
printf '%-12s %8s %8s %8s\n' client median MB/s "÷ curl"
for client in $clients; do
  m=$(median < "$work/$client")
  awk -v name="$client" -v m="$m" -v c="$curl_median" -v size="$size" \
    'BEGIN {printf "%-12s %7.3fs %8.0f %7.2fx\n", name, m, size / m / 1e6, c / m}'
done
