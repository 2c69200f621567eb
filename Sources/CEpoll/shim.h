// Linux's epoll and eventfd, and two GNU pthread calls (naming a thread, a join with a
// deadline), which Glibc's Swift module does not include (they need _GNU_SOURCE). Includes and
// declarations only: both functions are glibc's.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <time.h>

extern int pthread_setname_np(pthread_t thread, const char *name);
extern int pthread_timedjoin_np(pthread_t thread, void **retval, const struct timespec *abstime);
