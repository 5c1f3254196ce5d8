/* thread_names.c: thread names by (process, thread) (thread_names.h). */
#include "thread_names.h"

#include <stdlib.h>
#include <string.h>

#include "store.h"

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

static void read_process(struct thread_names *names, int64_t process_id)
{
    names->process_id = process_id;
    names->count = 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(names->db,
                           "SELECT t.thread_id, s.value FROM threads t JOIN strings s ON s.id = t.name_id"
                           " WHERE t.process_id = ?1 ORDER BY t.thread_id LIMIT 4096",
                           -1, &query, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(query, 1, process_id);
    size_t capacity = 0;
    while (sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 1)) {
        if (names->count == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            struct thread_name *grown = realloc(names->items, capacity * sizeof *grown);
            if (!grown)
                break;
            names->items = grown;
        }
        struct thread_name *named = &names->items[names->count++];
        named->thread_id = sqlite3_column_int64(query, 0);
        const char *text = (const char *)sqlite3_column_text(query, 1);
        size_t length = strnlen(text, sizeof named->name - 1);
        memcpy(named->name, text, length);
        named->name[length] = '\0';
    }
    sqlite3_finalize(query);
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
