/* thread_names.c: thread names by (process, thread) (thread_names.h). */
#include "thread_names.h"

#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "threads.h"

void thread_names_open(struct thread_names *names, sqlite3 *db)
{
    *names = (struct thread_names){
        .db = db, .has_table = store_db_has_table(db, "threads"), .process_id = INT64_MIN};
}

void thread_names_close(struct thread_names *names)
{
    free(names->items);
    names->items = NULL;
    names->count = 0;
}

static int by_thread_id(const void *a, const void *b)
{
    const struct thread_name *x = a, *y = b;
    return (x->thread_id > y->thread_id) - (x->thread_id < y->thread_id);
}

/* Holds one named thread (store_each_thread_name's visit); stops when out of memory. */
static int hold_name(void *context, int64_t thread_id, const char *text)
{
    struct thread_names *names = context;
    if (names->count == names->capacity) {
        size_t capacity = names->capacity ? names->capacity * 2 : 16;
        struct thread_name *grown = realloc(names->items, capacity * sizeof *grown);
        if (!grown)
            return 1;
        names->items = grown;
        names->capacity = capacity;
    }
    struct thread_name *named = &names->items[names->count++];
    named->thread_id = thread_id;
    size_t length = strnlen(text, sizeof named->name - 1);
    memcpy(named->name, text, length);
    named->name[length] = '\0';
    return 0;
}

static void read_process(struct thread_names *names, int64_t process_id)
{
    names->process_id = process_id;
    names->count = 0;
    names->capacity = 0;
    store_each_thread_name(names->db, process_id, hold_name, names);
}

const char *thread_names_find(struct thread_names *names, int64_t process_id, int64_t thread_id)
{
    if (!names->has_table || thread_id == STORE_NULL)
        return NULL;
    if (names->process_id != process_id)
        read_process(names, process_id);
    struct thread_name key = {.thread_id = thread_id};
    const struct thread_name *found =
        names->count ? bsearch(&key, names->items, names->count, sizeof key, by_thread_id) : NULL;
    return found ? found->name : NULL;
}
