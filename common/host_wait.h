/* host_wait.h: what an OS runtime call is, by its name: whether it holds the calling thread waiting
 * for something outside it (another thread, I/O, a child process, a timer), the one home of that
 * rule. The nsys importer keeps exactly the OS runtime calls (OSRT_API) that some class below names,
 * and the analyzer says what a launching thread was waiting for from the same classes, so that the
 * two cannot disagree. Names are the C library's ("pthread_cond_wait", "poll", "sem_timedwait"), as
 * nsys records them. Pure C, no state. */
#ifndef OVERLAPSCOPE_HOST_WAIT_H
#define OVERLAPSCOPE_HOST_WAIT_H

/* A wait shorter than this cannot hold a GPU back measurably (the analyzer's start tolerance,
 * EXPLAIN_START_TOLERANCE_NS): the importer keeps only longer ones (a Python import reads
 * thousands of files a few microseconds each). */
#define HOST_WAIT_MIN_NS 10000

enum host_wait_class {
    HOST_WAIT_NONE = 0, /* not a waiting call: mmap, open, ioctl (the CUDA driver's own), write ... */
    HOST_WAIT_THREAD,   /* another thread: condition variables, mutexes, semaphores, joins, barriers */
    HOST_WAIT_IO,       /* file descriptors: poll, select, epoll, reads and receives */
    HOST_WAIT_CHILD,    /* a child process: wait, waitpid, waitid */
    HOST_WAIT_SLEEP,    /* a timer: sleep, usleep, nanosleep */
    HOST_WAIT_CLASS_COUNT
};

/* The class of a call by name; HOST_WAIT_NONE for NULL or a call that does not wait. */
enum host_wait_class host_wait_classify(const char *name);

/* What the thread waited for, for evidence lines: "another thread", "I/O", "a child process", "a
 * timer" (NULL for HOST_WAIT_NONE). */
const char *host_wait_class_name(enum host_wait_class wait_class);

#endif
