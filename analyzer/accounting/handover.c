/* handover.c: moves one device's books from a worker's accountant to the run's (accountant.h,
 * "a device's books between accountants"). What a single accountant would have done across
 * devices is redone here, in device order: the intervals' cap (ACCOUNTING_MAX_INTERVALS, the
 * earliest kept), which device is the first of its process (the unchecked causes are said on it),
 * and ledger marks that never repeat one the books already hold. */
#include <stdlib.h>
#include <string.h>

#include "accountant_state.h"

int accountant_take_device(accountant *worker, struct accountant_device *out)
{
    struct ledger *ledger = &worker->ledger;
    struct device_books *books = ledger_current(ledger);
    out->books = NULL;
    out->intervals = NULL;
    out->interval_count = 0;
    out->next_mark = ledger->next_mark;
    if (!books)
        return 0;
    size_t first = (size_t)books->interval_first, count = ledger->interval_count - first;
    out->books = malloc(sizeof *out->books);
    if (!out->books)
        return -1;
    if (count) {
        out->intervals = malloc(count * sizeof *out->intervals);
        if (!out->intervals) {
            free(out->books);
            out->books = NULL;
            return -1;
        }
        for (size_t i = 0; i < count; i++)
            ledger_interval_out(ledger, &ledger->intervals[first + i], ledger->intervals[first + i].device,
                                &out->intervals[i]);
    }
    out->interval_count = count;
    *out->books = *books;
    ledger->book_count--;
    ledger->interval_count = first;
    return 0;
}

int accountant_adopt_device(accountant *run, struct accountant_device *in, size_t result_index)
{
    struct ledger *ledger = &run->ledger;
    if (in->next_mark > ledger->next_mark)
        ledger->next_mark = in->next_mark;
    if (in->began && in->dropped)
        run->known_process = INT64_MIN; /* as accountant_end_device: the next device is a first */
    if (!in->books)
        return 0;
    if (ledger->book_count == ledger->book_capacity) {
        size_t capacity = ledger->book_capacity ? ledger->book_capacity * 2 : 8;
        struct device_books *grown = realloc(ledger->books, capacity * sizeof *grown);
        if (!grown)
            return -1;
        ledger->books = grown;
        ledger->book_capacity = capacity;
    }
    size_t kept = ledger->interval_count < ACCOUNTING_MAX_INTERVALS
                      ? ACCOUNTING_MAX_INTERVALS - ledger->interval_count
                      : 0;
    kept = in->interval_count < kept ? in->interval_count : kept;
    if (ledger_reserve_intervals(ledger, ledger->interval_count + kept) != 0)
        return -1;
    struct device_books *books = &ledger->books[ledger->book_count];
    *books = *in->books;
    books->result_index = result_index;
    books->first_of_process = run->known_process != books->process_id;
    run->known_process = books->process_id;
    books->interval_first = (int64_t)ledger->interval_count;
    for (size_t i = 0; i < kept; i++)
        if (ledger_interval_in(ledger, &in->intervals[i], ledger->book_count) != 0)
            return -1;
    books->interval_end = ledger->interval_count;
    ledger->current_book = ledger->book_count++;
    free(in->books);
    free(in->intervals);
    in->books = NULL;
    in->intervals = NULL;
    return 0;
}

void accountant_device_free(struct accountant_device *device)
{
    if (device->books) {
        ledger_books_free(device->books);
        free(device->books);
    }
    free(device->intervals);
    device->books = NULL;
    device->intervals = NULL;
}
