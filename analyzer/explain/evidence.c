/* evidence.c: the words of a wait's evidence (see explain_parts.h). A long trace has far more
 * waits than the report keeps, so every function here writes only while the wait is described
 * (`describing`, `describe`: set by set_wait_time in rules.c for a wait that will be kept). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "explain_parts.h"
#include "units.h"

void explain_describe(struct wait_case *item, const char *format, ...)
{
    if (!item->describe)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(item->wait.evidence, sizeof item->wait.evidence, format, args);
    va_end(args);
}

/* "thread 1082 (python3)", or "thread 1082" where the trace names no thread: the thread that
 * launched the waiting op, as the evidence names it (formatted only for a wait being described). */
const char *explain_thread_label(explainer *explain, const struct wait_case *item)
{
    if (!explain->describing)
        return "";
    const char *name = thread_names_find(&explain->threads, item->device->process_id, item->launch.thread_id);
    snprintf(explain->thread_text, sizeof explain->thread_text, "thread %" PRId64 "%s%s%s",
             item->launch.thread_id, name ? " (" : "", name ? name : "", name ? ")" : "");
    return explain->thread_text;
}

/* A bounded copy, cut at size - 1 bytes (names decide causes too, so they are copied for every
 * wait: a plain copy, not snprintf). */
void explain_copy_text(char *buffer, size_t size, const unsigned char *text)
{
    const char *from = text ? (const char *)text : "?";
    size_t length = strnlen(from, size - 1);
    memcpy(buffer, from, length);
    buffer[length] = '\0';
}

const char *explain_duration(char *buffer, size_t size, int64_t nanoseconds)
{
    return units_format_duration(buffer, size, nanoseconds);
}

/* "sgemm_256x128", "HtoD 64.0 MiB (pageable)", "memset 1.00 MiB". */
void explain_op_name(explainer *explain, const struct model_op *op, char *buffer, size_t size)
{
    char bytes[32];
    if (!explain->describing) {
        buffer[0] = '\0';
        return;
    }
    if (op->kind == MODEL_KERNEL) {
        snprintf(buffer, size, "%s", kernel_names_short(explain->names, op->name_id));
    } else if (op->kind == MODEL_MEMCPY) {
        naming_copy(buffer, size, op->copy_kind, op->bytes, is_pageable_copy(op));
    } else {
        snprintf(buffer, size, "memset %s", units_format_bytes(bytes, sizeof bytes, op->bytes));
    }
}

/* An op's name in a sentence that has just named another op: when both are the same kernel (or
 * copy), "spin could have run beside spin" reads as a garble, so the second says its stream. */
const char *explain_second_name(char *buffer, size_t size, const char *first, const char *second,
                                int64_t stream_id)
{
    if (strcmp(first, second) != 0)
        return second;
    snprintf(buffer, size, "the %s on stream %" PRId64, second, stream_id);
    return buffer;
}

const char *explain_op_kind_word(const struct model_op *op)
{
    return op->kind == MODEL_KERNEL ? "kernel" : op->kind == MODEL_MEMCPY ? "copy" : "memset";
}

/* "returned 7.08 ms after" / "returned only 3.07 us before": when the launch call ended, against
 * the blocking op's end. */
void explain_launch_timing(const struct wait_case *item, char *when, size_t size)
{
    char late[32];
    when[0] = '\0';
    if (!item->describe)
        return;
    int64_t late_ns = item->launch.end_ns - item->blocking->end_ns;
    if (late_ns >= 0)
        snprintf(when, size, "returned %s after", explain_duration(late, sizeof late, late_ns));
    else
        snprintf(when, size, "returned only %s before", explain_duration(late, sizeof late, -late_ns));
}

/* How long the holding call held the thread, formatted only for a kept wait. */
const char *explain_held_for(const struct wait_case *item, const struct host_activity *held, char *buffer,
                             size_t size)
{
    buffer[0] = '\0';
    return item->describe ? explain_duration(buffer, size, held->call_overlap_ns) : buffer;
}
