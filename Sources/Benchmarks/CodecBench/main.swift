// CodecBench: throughput of the response decoder (a program run by `make bench-codec`, not a test).
print("CodecBench: not yet written")
