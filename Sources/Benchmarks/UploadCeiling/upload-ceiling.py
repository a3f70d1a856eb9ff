#!/usr/bin/env python3
"""The upload sink's own ceiling, beside curl and wire in one run (issue #16: the multipart upload row).

The reference harness (../shared/bench) uploads 1 GiB to a Python sink that reads the body into a 1 MiB
buffer and answers at the end. How fast can anything upload into it? This sends the same number of bytes
from memory -- one zeroed 1 MiB buffer, `sendall` in a loop, no file read at all, so no sender can do less
work -- and, alternated with it, `curl -T FILE` (the harness's curl row) and `wire upload -F file=@FILE`
(its wire row). It prints each run, then the medians and their ratios to curl. A "memory" rate below 2x curl
means the 2x target is above what the sink takes, whatever the client.

    python3 Sources/Benchmarks/UploadCeiling/upload-ceiling.py WIRE FILE [ROUNDS]
    (servers from: bash ../shared/bench/server.sh start; FILE: /tmp/wirebench/fixtures/big.bin)
"""
import os
import socket
import statistics
import subprocess
import sys
import time

HOST, PORT, PATH = "127.0.0.1", 18081, "/upload"


def from_memory(size):
    """Seconds to send `size` bytes from memory as one POST and read the sink's answer."""
    chunk = bytes(1 << 20)
    start = time.perf_counter()
    with socket.create_connection((HOST, PORT)) as sock:
        head = f"POST {PATH} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/octet-stream\r\n"
        sock.sendall((head + f"Content-Length: {size}\r\nConnection: close\r\n\r\n").encode())
        left = size
        while left > 0:
            part = chunk if left >= len(chunk) else chunk[:left]
            sock.sendall(part)
            left -= len(part)
        answer = sock.recv(4096)
    elapsed = time.perf_counter() - start
    if not answer.startswith(b"HTTP/1.1 200") and not answer.startswith(b"HTTP/1.0 200"):
        sys.exit(f"the sink answered {answer[:40]!r}")
    return elapsed


def timed(command):
    """Seconds the command took; exits when it fails."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    wire, path = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    size = os.path.getsize(path)
    url = f"http://{HOST}:{PORT}{PATH}"
    contenders = {
        "memory": lambda: from_memory(size),
        "curl": lambda: timed(["curl", "-sS", "-f", "-X", "POST", "-T", path, "-H",
                               "Content-Type: application/octet-stream", "-o", "/dev/null", url]),
        "wire": lambda: timed([wire, "upload", url, "-F", f"file=@{path}", "--no-progress", "-o", "/dev/null"]),
    }
    rates = {name: [] for name in contenders}
    for round_number in range(1, rounds + 1):
        for name, run in contenders.items():
            rate = size / run() / 1e6
            rates[name].append(rate)
            print(f"round {round_number} {name}: {rate:,.0f} MB/s", flush=True)
    curl = statistics.median(rates["curl"])
    for name, values in rates.items():
        median = statistics.median(values)
        print(f"{name}: median {median:,.0f} MB/s ({min(values):,.0f}-{max(values):,.0f}), {median / curl:.2f}x curl")


if __name__ == "__main__":
    main()
