# median: the median of the numbers on standard input, one per line (the mean of the middle two for an even
# count). Sourced by the benchmark scripts beside this folder, which report medians of interleaved rounds
# rather than means: on a shared machine one slow round says more about the neighbours than about the code.
#
#   source "$(dirname "$0")/../Shell/median.sh"
#   printf '%s\n' 3 1 2 | median          # 2
median() {
  sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
