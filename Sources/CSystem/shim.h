// CSystem: the Linux system calls that Swift's Glibc module does not expose.
// epoll, eventfd, splice and sendfile live behind _GNU_SOURCE or in headers Glibc leaves out.
#ifndef HTTPWIRE_CSYSTEM_SHIM_H
#define HTTPWIRE_CSYSTEM_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>
#endif
