/* kernel_names.c: see kernel_names.h. */
#include "kernel_names.h"

#include "kernel_name.h"
#include "queries_kernels.h"
#include "queries_whatif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct name_entry {
    int64_t name_id; /* 0: empty slot */
    char *short_name;
    char *text; /* the string as stored; NULL when the strings table has no such row */
    int is_nccl;
};

struct kernel_names {
    sqlite3 *db;
    store_string_reader *lookup;
    char *uncached_text; /* kernel_names_text's answer for an id no entry can hold (<= 0) */
    struct name_entry *entries;
    size_t capacity, count;
    int64_t *collective_rowids; /* sorted */
    size_t collective_count;
};

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int load_collectives(kernel_names *names, error_info *err)
{
    int status =
        store_collective_kernel_rowids(names->db, &names->collective_rowids, &names->collective_count, err);
    if (names->collective_count)
        qsort(names->collective_rowids, names->collective_count, sizeof(int64_t), compare_int64);
    return status;
}

kernel_names *kernel_names_new(sqlite3 *db, error_info *err)
{
    kernel_names *names = calloc(1, sizeof *names);
    if (!names) {
        error_set(err, "out of memory");
        return NULL;
    }
    names->db = db;
    names->capacity = 256;
    names->entries = calloc(names->capacity, sizeof *names->entries);
    error_info lookup_err = {0};
    if (names->entries)
        names->lookup = store_string_reader_open(db, &lookup_err);
    if (!names->lookup) {
        error_set(err, "cannot read kernel names: %s", sqlite3_errmsg(db));
        kernel_names_free(names);
        return NULL;
    }
    if (load_collectives(names, err) != 0) {
        kernel_names_free(names);
        return NULL;
    }
    return names;
}

void kernel_names_free(kernel_names *names)
{
    if (!names)
        return;
    for (size_t i = 0; i < names->capacity; i++) {
        free(names->entries[i].short_name);
        free(names->entries[i].text);
    }
    free(names->entries);
    free(names->uncached_text);
    free(names->collective_rowids);
    if (names->lookup)
        store_string_reader_free(names->lookup);
    free(names);
}

/* 1 with *text the strings row name_id (NULL when its value is), 0 when there is no such row or it
 * cannot be read (the name is then "?"). */
static int lookup(kernel_names *names, int64_t name_id, const char **text)
{
    error_info ignored = {0};
    *text = NULL;
    return store_string_reader_find(names->lookup, name_id, text, &ignored) == 0 && *text;
}

static int grow_entries(kernel_names *names)
{
    size_t capacity = names->capacity * 2;
    struct name_entry *entries = calloc(capacity, sizeof *entries);
    if (!entries)
        return -1;
    for (size_t i = 0; i < names->capacity; i++) {
        if (names->entries[i].name_id == 0)
            continue;
        size_t slot = (size_t)names->entries[i].name_id * 11400714819323198485ull & (capacity - 1);
        while (entries[slot].name_id != 0)
            slot = (slot + 1) & (capacity - 1);
        entries[slot] = names->entries[i];
    }
    free(names->entries);
    names->entries = entries;
    names->capacity = capacity;
    return 0;
}

static const struct name_entry *find_entry(kernel_names *names, int64_t name_id)
{
    static const struct name_entry unknown = {0, (char *)"?", NULL, 0};
    if (name_id <= 0)
        return &unknown;
    size_t slot = (size_t)name_id * 11400714819323198485ull & (names->capacity - 1);
    while (names->entries[slot].name_id != 0) {
        if (names->entries[slot].name_id == name_id)
            return &names->entries[slot];
        slot = (slot + 1) & (names->capacity - 1);
    }
    if ((names->count + 1) * 2 > names->capacity) {
        if (grow_entries(names) != 0)
            return &unknown;
        return find_entry(names, name_id);
    }
    char short_name[160] = "?";
    int is_nccl = 0, found = 0;
    char *text = NULL;
    const char *name = NULL;
    if (lookup(names, name_id, &name)) {
        kernel_name_short(name, short_name, sizeof short_name);
        is_nccl = kernel_name_is_communication(name);
        found = 1;
        text = name ? strdup(name) : NULL;
    }
    store_string_reader_release(names->lookup);
    char *copy = strdup(short_name);
    if (!copy || (found && !text)) {
        free(copy);
        free(text);
        return &unknown;
    }
    names->entries[slot] = (struct name_entry){name_id, copy, text, is_nccl};
    names->count++;
    return &names->entries[slot];
}

const char *kernel_names_short(kernel_names *names, int64_t name_id)
{
    return find_entry(names, name_id)->short_name;
}

int kernel_names_is_communication(kernel_names *names, int64_t name_id, int64_t kernel_rowid)
{
    if (find_entry(names, name_id)->is_nccl)
        return 1;
    return names->collective_count &&
           bsearch(&kernel_rowid, names->collective_rowids, names->collective_count, sizeof(int64_t),
                   compare_int64) != NULL;
}

const char *kernel_names_text(kernel_names *names, int64_t name_id)
{
    if (name_id > 0)
        return find_entry(names, name_id)->text;
    free(names->uncached_text); /* a damaged trace's id: asked for each time */
    names->uncached_text = NULL;
    const char *text = NULL;
    if (lookup(names, name_id, &text) && text)
        names->uncached_text = strdup(text);
    store_string_reader_release(names->lookup);
    return names->uncached_text;
}

char *kernel_names_full(kernel_names *names, int64_t name_id)
{
    char *full = NULL;
    const char *text = NULL;
    if (lookup(names, name_id, &text))
        full = kernel_name_demangle(text);
    store_string_reader_release(names->lookup);
    return full ? full : strdup("?");
}
