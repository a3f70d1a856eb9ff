// The chunked row's ceiling on this machine (issue #16): how fast can any client take the reference harness's
// 1 GiB chunked stream (16 KiB chunks, RFC 9112 §7.1) and put its body in a file?
//
// Three minimal clients, no HTTP library, no error recovery beyond "stop", each the fastest way to do one
// shape of the job:
//   discard     recv into a 1 MiB buffer and drop it: the socket side alone (no file, no copy to disk).
//   one-thread  one thread: recv into a 1 MiB block, find the chunks' data in place, pwritev(2) the pieces,
//               repeat. The disk write blocks the thread that reads the socket (what curl does, in 16 KiB steps).
//   two-threads a reader thread fills one 1 MiB block while a writer thread pwritevs the other, handing them
//               over under a mutex: the shape HTTPWire is built to (the reactor owns the socket, disk I/O runs
//               on a thread of its own; STYLE.md), without anything else HTTPWire does.
// chunked-ceiling.sh runs them alternated with curl and wire and prints medians and ratios to curl.
//
//   cc -O2 -pthread chunked-ceiling.c -o chunked-ceiling
//   ./chunked-ceiling MODE HOST PORT PATH OUTPUT     (prints the body's byte count)
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

enum { BLOCK = 1 << 20, MAX_PIECES = 1024 };

static void fail(const char *what) { perror(what); exit(1); }

// The chunked framing, one byte at a time outside the data: enough for a well-behaved server.
typedef struct {
  enum { SIZE, EXTENSION, SIZE_LF, DATA, DATA_CR, DATA_LF, TRAILER, TRAILER_LF, DONE } state;
  long remaining;  // bytes of chunk data still to come, or the size being read
  int lineHasBytes;
} Framing;

typedef struct {
  char *bytes;
  size_t count;  // bytes received into the block
  struct iovec pieces[MAX_PIECES];
  int pieceCount;
} Block;

// Walks bytes [from, block->count) of the block, appending each run of chunk data as a piece.
static void decode(Framing *f, Block *block, size_t from) {
  char *p = block->bytes + from, *end = block->bytes + block->count;
  while (p < end && f->state != DONE) {
    switch (f->state) {
    case SIZE: {
      char c = *p++;
      int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (digit >= 0) f->remaining = f->remaining * 16 + digit;
      else if (c == '\r') f->state = SIZE_LF;
      else f->state = EXTENSION;
      break;
    }
    case EXTENSION: if (*p++ == '\r') f->state = SIZE_LF; break;
    case SIZE_LF:
      p++;
      f->state = f->remaining == 0 ? TRAILER : DATA;
      f->lineHasBytes = 0;
      break;
    case DATA: {
      size_t take = (size_t)(end - p) < (size_t)f->remaining ? (size_t)(end - p) : (size_t)f->remaining;
      struct iovec *last = block->pieceCount ? &block->pieces[block->pieceCount - 1] : NULL;
      if (last && (char *)last->iov_base + last->iov_len == p) last->iov_len += take;
      else {
        if (block->pieceCount == MAX_PIECES) { fprintf(stderr, "too many pieces\n"); exit(1); }
        block->pieces[block->pieceCount++] = (struct iovec){p, take};
      }
      p += take;
      f->remaining -= take;
      if (f->remaining == 0) f->state = DATA_CR;
      break;
    }
    case DATA_CR: p++; f->state = DATA_LF; break;
    case DATA_LF: p++; f->state = SIZE; f->remaining = 0; break;
    case TRAILER:
      if (*p == '\r') f->state = TRAILER_LF; else f->lineHasBytes = 1;
      p++;
      break;
    case TRAILER_LF:
      p++;
      if (!f->lineHasBytes) f->state = DONE; else { f->state = TRAILER; f->lineHasBytes = 0; }
      break;
    case DONE: break;
    }
  }
}

static int connectTo(const char *host, int port, const char *path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, host, &address.sin_addr);
  if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) fail("connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char request[512];
  int n = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n", path, host, port);
  if (send(fd, request, n, 0) != n) fail("send");
  return fd;
}

// Reads the response head; whatever body bytes came with it are left at the start of `block`.
static void readHead(int fd, Block *block) {
  static char head[16384];
  size_t have = 0;
  for (;;) {
    ssize_t n = recv(fd, head + have, sizeof head - have, 0);
    if (n <= 0) fail("recv head");
    have += n;
    char *endOfHead = memmem(head, have, "\r\n\r\n", 4);
    if (endOfHead) {
      size_t headLength = endOfHead + 4 - head;
      memcpy(block->bytes, head + headLength, have - headLength);
      block->count = have - headLength;
      return;
    }
  }
}

// Fills `block` (after what it holds) until it is full or the body ended; decodes what came in.
static void fill(int fd, Framing *f, Block *block) {
  decode(f, block, 0);
  while (block->count < BLOCK && f->state != DONE) {
    ssize_t n = recv(fd, block->bytes + block->count, BLOCK - block->count, 0);
    if (n <= 0) fail("recv body");
    size_t from = block->count;
    block->count += n;
    decode(f, block, from);
  }
}

static long long writePieces(int out, Block *block, long long offset) {
  int first = 0;
  while (first < block->pieceCount) {
    int batch = block->pieceCount - first;
    ssize_t n = pwritev(out, block->pieces + first, batch, offset);
    if (n < 0) fail("pwritev");
    offset += n;
    while (n > 0 && first < block->pieceCount) {  // short write: drop what went, trim the next piece
      if ((size_t)n >= block->pieces[first].iov_len) { n -= block->pieces[first].iov_len; first++; }
      else { block->pieces[first].iov_base = (char *)block->pieces[first].iov_base + n; block->pieces[first].iov_len -= n; n = 0; }
    }
  }
  return offset;
}

// two-threads: the blocks travel between the reader and the writer under one mutex.
static struct {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  Block *full, *empty;  // a block waiting for the writer; one waiting for the reader
  int finished;
  int out;
  long long written;
} handOff = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static void *writer(void *unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&handOff.lock);
    while (!handOff.full && !handOff.finished) pthread_cond_wait(&handOff.changed, &handOff.lock);
    Block *block = handOff.full;
    handOff.full = NULL;
    pthread_mutex_unlock(&handOff.lock);
    if (!block) return NULL;
    handOff.written = writePieces(handOff.out, block, handOff.written);
    pthread_mutex_lock(&handOff.lock);
    handOff.empty = block;
    pthread_cond_broadcast(&handOff.changed);
    pthread_mutex_unlock(&handOff.lock);
  }
}

static Block *newBlock(void) {
  Block *block = calloc(1, sizeof *block);
  block->bytes = malloc(BLOCK);
  return block;
}

int main(int argc, char **argv) {
  if (argc != 6) { fprintf(stderr, "usage: %s discard|one-thread|two-threads HOST PORT PATH OUTPUT\n", argv[0]); return 2; }
  const char *mode = argv[1];
  int fd = connectTo(argv[2], atoi(argv[3]), argv[4]);
  Block *block = newBlock();
  readHead(fd, block);
  Framing framing = {.state = SIZE};
  long long total = 0;
  if (strcmp(mode, "discard") == 0) {
    total = block->count;
    ssize_t n;
    while ((n = recv(fd, block->bytes, BLOCK, 0)) > 0) total += n;  // framing included: the socket side only
  } else {
    int out = open(argv[5], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) fail("open");
    if (strcmp(mode, "one-thread") == 0) {
      while (framing.state != DONE) {
        fill(fd, &framing, block);
        total = writePieces(out, block, total);
        block->count = 0;
        block->pieceCount = 0;
      }
    } else {
      handOff.out = out;
      handOff.empty = newBlock();
      pthread_t thread;
      pthread_create(&thread, NULL, writer, NULL);
      while (framing.state != DONE) {
        fill(fd, &framing, block);
        pthread_mutex_lock(&handOff.lock);
        while (handOff.full || !handOff.empty) pthread_cond_wait(&handOff.changed, &handOff.lock);
        handOff.full = block;
        block = handOff.empty;
        handOff.empty = NULL;
        pthread_cond_broadcast(&handOff.changed);
        pthread_mutex_unlock(&handOff.lock);
        block->count = 0;
        block->pieceCount = 0;
      }
      pthread_mutex_lock(&handOff.lock);
      handOff.finished = 1;
      pthread_cond_broadcast(&handOff.changed);
      pthread_mutex_unlock(&handOff.lock);
      pthread_join(thread, NULL);
      total = handOff.written;
    }
    close(out);
  }
  printf("%lld\n", total);
  return 0;
}
