/* host_wait.c: OS runtime calls that wait, by name (see host_wait.h). */
#include "host_wait.h"

#include <string.h>

/* Exact names: a prefix test would take pthread_cond_signal or sem_post for waits. The lists are
 * the waiting calls of nsys's OS runtime trace (nsys User Guide, "OS Runtime Libraries Trace"). */
static const char *const thread_waits[] = {"pthread_cond_wait",
                                           "pthread_cond_timedwait",
                                           "pthread_cond_clockwait",
                                           "pthread_mutex_lock",
                                           "pthread_mutex_timedlock",
                                           "pthread_mutex_clocklock",
                                           "pthread_rwlock_rdlock",
                                           "pthread_rwlock_wrlock",
                                           "pthread_rwlock_timedrdlock",
                                           "pthread_rwlock_timedwrlock",
                                           "pthread_spin_lock",
                                           "pthread_join",
                                           "pthread_timedjoin_np",
                                           "pthread_barrier_wait",
                                           "sem_wait",
                                           "sem_timedwait",
                                           "sem_clockwait"};
static const char *const io_waits[] = {
    "poll",        "ppoll",        "select",     "pselect",         "pselect6", "epoll_wait",
    "epoll_pwait", "epoll_pwait2", "read",       "pread",           "pread64",  "readv",
    "preadv",      "recv",         "recvfrom",   "recvmsg",         "recvmmsg", "accept",
    "accept4",     "msgrcv",       "mq_receive", "mq_timedreceive", "fread",    "fgets",
    "getc",        "fgetc",        "connect",    "flock",           "lockf",    "fsync",
    "fdatasync",   "sync"};
static const char *const child_waits[] = {"wait", "waitpid", "waitid", "wait3", "wait4"};
static const char *const sleeps[] = {"sleep", "usleep", "nanosleep", "clock_nanosleep"};

static int in(const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

#define IN(name, list) in(name, list, sizeof list / sizeof list[0])

enum host_wait_class host_wait_classify(const char *name)
{
    if (!name)
        return HOST_WAIT_NONE;
    if (IN(name, thread_waits))
        return HOST_WAIT_THREAD;
    if (IN(name, io_waits))
        return HOST_WAIT_IO;
    if (IN(name, child_waits))
        return HOST_WAIT_CHILD;
    if (IN(name, sleeps))
        return HOST_WAIT_SLEEP;
    return HOST_WAIT_NONE;
}

const char *host_wait_class_name(enum host_wait_class wait_class)
{
    static const char *const names[HOST_WAIT_CLASS_COUNT] = {NULL, "another thread", "I/O", "a child process",
                                                             "a timer"};
    return wait_class >= 0 && wait_class < HOST_WAIT_CLASS_COUNT ? names[wait_class] : NULL;
}
