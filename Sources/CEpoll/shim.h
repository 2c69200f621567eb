// Linux's epoll and eventfd, which Glibc's Swift module does not include. Includes only.
#include <sys/epoll.h>
#include <sys/eventfd.h>
