// CSystem: the Linux system calls that Swift's Glibc module does not expose.
// epoll, eventfd and sendfile come from their headers, mallopt(3) (the CLI's malloc settings) from malloc.h. splice(2), accept4, pipe2, F_SETPIPE_SZ and pthread_setname_np are
// GNU extensions; defining _GNU_SOURCE here would change structures Glibc also defines (fd_set), and Swift
// then refuses to import both modules in one file, so those are declared here directly instead.
#ifndef HTTPWIRE_CSYSTEM_SHIM_H
#define HTTPWIRE_CSYSTEM_SHIM_H
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/// splice(2): moves bytes between a pipe and another descriptor inside the kernel (fcntl.h, _GNU_SOURCE).
extern ssize_t splice(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len, unsigned int flags);
/// accept4(2): accept with SOCK_NONBLOCK | SOCK_CLOEXEC in one call (sys/socket.h, _GNU_SOURCE).
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
/// pipe2(2): a pipe with O_NONBLOCK | O_CLOEXEC in one call (unistd.h, _GNU_SOURCE).
extern int pipe2(int fds[2], int flags);
/// pthread_setname_np(3): names a thread for ps/top/gdb (pthread.h, _GNU_SOURCE).
extern int pthread_setname_np(pthread_t thread, const char *name);

/// splice flags and the pipe-size fcntl, with the values of linux/fcntl.h and bits/fcntl-linux.h.
static const unsigned int httpwire_SPLICE_F_MOVE = 1;
static const unsigned int httpwire_SPLICE_F_NONBLOCK = 2;
static const int httpwire_F_SETPIPE_SZ = 1031;
#endif
