/* capture_note.h: the one line info, report and render print for a trace recorded with
 * record --capture-range, --delay or --duration ("captured: cudaProfilerStart..Stop, 2 ranges,
 * 1.24 s of 9.8 s"), from the trace's meta rows capture_range, capture_windows and
 * capture_process (collector/capture_cupti.h, record_merge). A trace without them (every import,
 * every recording of the whole job) has no such line. */
#ifndef OVERLAPSCOPE_CLI_CAPTURE_NOTE_H
#define OVERLAPSCOPE_CLI_CAPTURE_NOTE_H

#include <stddef.h>

#include "store.h"

/* Writes the line (without "captured: " and without a newline) into line. Returns 1 when the
 * trace says what was captured, else 0 (line ""). */
int cli_capture_note(store *trace, char *line, size_t size);

/* The same for a trace named by path (opened read-only for it); 0 when it cannot be opened. */
int cli_capture_note_of(const char *path, char *line, size_t size);

#endif
