/* thread_names.c: see thread_names.h. */
#include "thread_names.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "threads.h"

/* TASK_COMM_LEN: a Linux thread name has at most 15 bytes. */
enum { NAME_SIZE = 16 };

struct noted_thread {
    uint32_t tid;
    char name[NAME_SIZE];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct noted_thread noted[THREAD_NAMES_MAX];
static size_t noted_count;

void thread_names_note(uint32_t tid)
{
    char name[NAME_SIZE] = {0};
    if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
        return;
    pthread_mutex_lock(&lock);
    if (noted_count < THREAD_NAMES_MAX) {
        noted[noted_count].tid = tid;
        memcpy(noted[noted_count].name, name, NAME_SIZE);
        noted[noted_count].name[NAME_SIZE - 1] = '\0';
        noted_count++;
    }
    pthread_mutex_unlock(&lock);
}

size_t thread_names_tids(uint32_t *tids, size_t capacity)
{
    pthread_mutex_lock(&lock);
    size_t count = noted_count < capacity ? noted_count : capacity;
    for (size_t i = 0; i < count; i++)
        tids[i] = noted[i].tid;
    pthread_mutex_unlock(&lock);
    return count;
}

void thread_names_forget_after_fork(void)
{
    lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    noted_count = 0;
}

/* The running thread tid's name from /proc, without its newline; 0 when it has ended. */
static int current_name(unsigned long tid, char name[NAME_SIZE])
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%lu/comm", tid);
    FILE *file = fopen(path, "re");
    if (!file)
        return 0;
    int found = fgets(name, NAME_SIZE, file) != NULL;
    fclose(file);
    name[strcspn(name, "\n")] = '\0';
    return found && name[0];
}

static int already_noted(uint32_t tid, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (noted[i].tid == tid)
            return 1;
    return 0;
}

int thread_names_write(store *trace, int64_t process_id, error_info *err)
{
    pthread_mutex_lock(&lock);
    size_t count = noted_count;
    pthread_mutex_unlock(&lock);
    if (store_begin(trace, err) != 0)
        return -1;
    int named = 0, status = 0;
    for (size_t i = 0; i < count && status == 0; i++) {
        char name[NAME_SIZE];
        const char *chosen = current_name(noted[i].tid, name) ? name : noted[i].name;
        if (!chosen[0])
            continue;
        status = store_insert_thread_name(trace, process_id, noted[i].tid, chosen, err);
        named += status == 0;
    }
    /* Threads running now that made no call through the callbacks. */
    DIR *tasks = status == 0 ? opendir("/proc/self/task") : NULL;
    for (struct dirent *entry; tasks && status == 0 && (entry = readdir(tasks));) {
        char *end = NULL, name[NAME_SIZE];
        unsigned long tid = strtoul(entry->d_name, &end, 10);
        if (!end || *end || tid == 0 || tid > UINT32_MAX || already_noted((uint32_t)tid, count) ||
            !current_name(tid, name))
            continue;
        status = store_insert_thread_name(trace, process_id, (int64_t)tid, name, err);
        named += status == 0;
    }
    if (tasks)
        closedir(tasks);
    if (status != 0) {
        store_rollback(trace);
        return -1;
    }
    return store_commit(trace, err) == 0 ? named : -1;
}
