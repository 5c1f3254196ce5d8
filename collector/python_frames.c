/* python_frames.c: see python_frames.h (the safety argument is there and in docs/collector.md). */
#include "python_frames.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "python_source.h"
#include "text_safe.h"

#define MAX_FRAMES 64            /* frames walked looking for the user's own */
#define MAX_TEXT_BYTES 255       /* of a file or function name */
#define MAX_LINE_TABLE (1 << 20) /* bytes of a line table scanned */
#define CODE_UNIT 2              /* sizeof(_Py_CODEUNIT) */

/* How a version finds a thread's innermost frame. */
enum frame_model {
    VIA_FRAME = 1,  /* 3.10: PyThreadState.frame, PyFrameObject.f_back */
    VIA_CFRAME = 2, /* 3.11, 3.12: PyThreadState.cframe->current_frame, _PyInterpreterFrame */
    VIA_THREAD = 3, /* 3.13: PyThreadState.current_frame */
};

enum line_table_format {
    PEP626 = 1,    /* 3.10 co_linetable: (bytes delta, line delta) pairs */
    LOCATIONS = 2, /* 3.11+ co_linetable: the location table (InternalDocs/locations.md) */
};

#define NA ((size_t)-1) /* a field this version does not have */

struct python_layout {
    unsigned version; /* major << 8 | minor */
    enum frame_model model;
    enum line_table_format line_table;
    struct {
        size_t frame;         /* PyThreadState: frame (3.10), cframe (3.11, 3.12), current_frame (3.13) */
        size_t current_frame; /* _PyCFrame.current_frame (3.11, 3.12) */
        size_t native_id;     /* PyThreadState.native_thread_id (3.11+; NA in 3.10) */
        size_t threads_head;  /* PyInterpreterState: tstate_head (3.10), threads.head (3.11); NA: found */
    } thread;
    struct { /* PyFrameObject (3.10) or _PyInterpreterFrame (3.11+) */
        size_t code, previous, instruction, owner;
        int by_generator, by_cstack; /* _frameowner values of the frames to treat apart; -1: none */
    } frame;
    struct { /* PyCodeObject */
        size_t first_line, filename, name, line_table, first_traceable, adaptive;
    } code;
    struct { /* sizeof PyASCIIObject, sizeof PyCompactUnicodeObject: where a compact string's data starts */
        size_t ascii_size, compact_size;
    } unicode;
};

/* Read off the headers of each version with offsetof (python_frames.h names them). Object header
 * (ob_refcnt, ob_type) 16 bytes, PyVarObject.ob_size at 16, PyBytesObject.ob_sval at 32 and
 * PyASCIIObject.length at 16, state at 32 in all four. Columns: version (major << 8 | minor),
 * model, line table; thread {frame, current_frame, native_id, threads_head}; frame {code, previous,
 * instruction, owner, by_generator, by_cstack}; code {first_line, filename, name, line_table,
 * first_traceable, adaptive}; unicode {ascii_size, compact_size}. */
static const struct python_layout layouts[] = {
    {0x30a,
     VIA_FRAME,
     PEP626,
     {24, NA, NA, 8},
     {32, 24, 96, NA, -1, -1},
     {40, 104, 112, 120, NA, NA},
     {48, 72}},
    {0x30b,
     VIA_CFRAME,
     LOCATIONS,
     {56, 8, 160, 16},
     {32, 48, 56, 69, 1, -1},
     {72, 112, 120, 136, 168, 184},
     {48, 72}},
    {0x30c,
     VIA_CFRAME,
     LOCATIONS,
     {56, 0, 144, NA},
     {0, 8, 56, 70, 1, 3},
     {68, 112, 120, 136, 176, 192},
     {40, 56}},
    {0x30d,
     VIA_THREAD,
     LOCATIONS,
     {72, NA, 160, NA},
     {0, 8, 56, 70, 1, 3},
     {68, 112, 120, 136, 184, 200},
     {40, 56}},
};

#define OBJECT_TYPE 8 /* PyObject.ob_type */
/* PyThreadState starts with prev, next, interp in every version here (Include/cpython/pystate.h). */
#define THREAD_NEXT 8
#define THREAD_INTERP 16
#define MAX_THREAD_STATES 256   /* walked in the interpreter's list */
#define HEAD_SEARCH_BYTES 16384 /* of PyInterpreterState searched for threads.head (3.12, 3.13) */
#define VAR_SIZE 16             /* PyVarObject.ob_size */
#define BYTES_DATA 32           /* PyBytesObject.ob_sval */
#define UNICODE_LENGTH 16
#define UNICODE_STATE 32
#define STATE_KIND(state) (((state) >> 2) & 7)
#define STATE_COMPACT(state) (((state) >> 5) & 1)
#define STATE_ASCII(state) (((state) >> 6) & 1)

static void *symbol(const char *name);

/* --- guarded reads --- */

/* Copies size bytes at address into buffer through the kernel: a bad address is an error
 * (EFAULT), never a fault in this process. */
static int read_memory(pid_t self, uintptr_t address, void *buffer, size_t size)
{
    if (address < 4096 || size == 0)
        return -1;
    struct iovec local = {.iov_base = buffer, .iov_len = size};
    struct iovec remote = {.iov_base = (void *)address, .iov_len = size};
    return process_vm_readv(self, &local, 1, &remote, 1, 0) == (ssize_t)size ? 0 : -1;
}

/* Two reads in one system call (a frame's code object and the next frame): returns how many of
 * them arrived whole, first one first (partial transfers stop at an iovec's edge, process_vm_readv(2)).
 * second may be 0: then only the first is read. */
static int read_two(pid_t self, uintptr_t first, void *first_buffer, size_t first_size, uintptr_t second,
                    void *second_buffer, size_t second_size)
{
    if (first < 4096)
        return 0;
    int count = second >= 4096 ? 2 : 1;
    struct iovec local[2] = {{first_buffer, first_size}, {second_buffer, second_size}};
    struct iovec remote[2] = {{(void *)first, first_size}, {(void *)second, second_size}};
    ssize_t got = process_vm_readv(self, local, (unsigned long)count, remote, (unsigned long)count, 0);
    return got < (ssize_t)first_size ? 0 : got == (ssize_t)(first_size + second_size) && count == 2 ? 2 : 1;
}

static uintptr_t pointer_at(const unsigned char *block, size_t offset)
{
    uintptr_t value;
    memcpy(&value, block + offset, sizeof value);
    return value;
}

static int64_t int64_at(const unsigned char *block, size_t offset)
{
    int64_t value;
    memcpy(&value, block + offset, sizeof value);
    return value;
}

static int int_at(const unsigned char *block, size_t offset)
{
    int value;
    memcpy(&value, block + offset, sizeof value);
    return value;
}

/* Appends code point to text as UTF-8; returns the new length, or size when it would not fit. */
static size_t put_utf8(char *text, size_t length, size_t size, uint32_t code)
{
    unsigned char bytes[4];
    size_t count = text_utf8_encode(code < 0x110000 ? code : '?', bytes);
    if (length + count >= size)
        return size;
    memcpy(text + length, bytes, count);
    return length + count;
}

/* A str object's text as UTF-8 (at most MAX_TEXT_BYTES). Compact strings only (every identifier
 * and file name CPython creates); a legacy (non-compact) string is refused. Returns 0 or -1. */
static int read_text(const struct python_frames *frames, pid_t self, uintptr_t object, char *text,
                     size_t size)
{
    const struct python_layout *layout = frames->layout;
    unsigned char header[80];
    if (read_memory(self, object, header, layout->unicode.ascii_size) != 0 ||
        pointer_at(header, OBJECT_TYPE) != frames->unicode_type)
        return -1;
    int64_t length = int64_at(header, UNICODE_LENGTH);
    unsigned state = (unsigned)int_at(header, UNICODE_STATE);
    unsigned kind = STATE_KIND(state);
    if (length < 0 || !STATE_COMPACT(state) || (kind != 1 && kind != 2 && kind != 4))
        return -1;
    size_t count = (size_t)length < MAX_TEXT_BYTES ? (size_t)length : MAX_TEXT_BYTES;
    uintptr_t data =
        object + (STATE_ASCII(state) ? layout->unicode.ascii_size : layout->unicode.compact_size);
    unsigned char raw[MAX_TEXT_BYTES * 4];
    if (count > 0 && read_memory(self, data, raw, count * kind) != 0)
        return -1;
    size_t used = 0;
    for (size_t i = 0; i < count && used < size; i++) {
        uint32_t code = kind == 1 ? raw[i] : kind == 2 ? (uint32_t)(raw[2 * i] | raw[2 * i + 1] << 8) : 0;
        if (kind == 4)
            memcpy(&code, raw + 4 * i, 4);
        if (code < 0x20 || code == 0x7F)
            code = '?'; /* a control character would break the report's lines */
        size_t next = put_utf8(text, used, size, code);
        if (next == size)
            break; /* cut between whole characters */
        used = next;
    }
    text[used] = '\0';
    return 0;
}

/* --- line tables --- */

/* A bytes object's contents read a chunk at a time. */
struct byte_stream {
    pid_t self;
    uintptr_t data;
    size_t size, position;
    size_t chunk_start, chunk_length;
    unsigned char chunk[512];
};

static int open_bytes(const struct python_frames *frames, pid_t self, uintptr_t object,
                      struct byte_stream *stream)
{
    unsigned char header[BYTES_DATA];
    if (read_memory(self, object, header, sizeof header) != 0 ||
        pointer_at(header, OBJECT_TYPE) != frames->bytes_type)
        return -1;
    int64_t size = int64_at(header, VAR_SIZE);
    if (size < 0)
        return -1;
    stream->self = self;
    stream->data = object + BYTES_DATA;
    stream->size = (size_t)size < MAX_LINE_TABLE ? (size_t)size : MAX_LINE_TABLE;
    stream->position = stream->chunk_start = stream->chunk_length = 0;
    return 0;
}

/* The next byte, or -1 at the end (or on a read error). */
static int next_byte(struct byte_stream *stream)
{
    if (stream->position >= stream->size)
        return -1;
    if (stream->position >= stream->chunk_start + stream->chunk_length) {
        size_t left = stream->size - stream->position;
        size_t length = left < sizeof stream->chunk ? left : sizeof stream->chunk;
        if (read_memory(stream->self, stream->data + stream->position, stream->chunk, length) != 0)
            return -1;
        stream->chunk_start = stream->position;
        stream->chunk_length = length;
    }
    return stream->chunk[stream->position++ - stream->chunk_start];
}

/* 3.10 (Objects/codeobject.c, PyCode_Addr2Line and Objects/lnotab_notes.txt): pairs of an
 * unsigned byte count and a signed line delta, -128 meaning "no line". */
static int line_pep626(struct byte_stream *table, int first_line, int64_t address)
{
    int64_t start = 0;
    int line = first_line;
    for (;;) {
        int bytes = next_byte(table), delta = next_byte(table);
        if (bytes < 0 || delta < 0)
            return -1;
        int64_t end = start + bytes;
        if (delta != 0x80)
            line += (signed char)delta;
        if (address >= start && address < end)
            return delta == 0x80 ? -1 : line;
        start = end;
    }
}

/* A varint of the location table: 6 bits per byte, bit 6 says another byte follows. */
static int read_varint(struct byte_stream *table, unsigned *value)
{
    int byte = next_byte(table);
    if (byte < 0)
        return -1;
    unsigned result = (unsigned)byte & 63, shift = 0;
    while (byte & 64) {
        if ((byte = next_byte(table)) < 0 || (shift += 6) > 30)
            return -1;
        result |= ((unsigned)byte & 63) << shift;
    }
    *value = result;
    return 0;
}

/* 3.11+ (Objects/codeobject.c, advance() and get_line_delta(); InternalDocs/locations.md): each
 * entry starts with a byte 1CCCCLLL, C the code, LLL + 1 the code units it covers; codes 0-9 are
 * the same line, 10-12 lines +0..+2 with two column bytes, 13 a signed varint line delta without
 * columns, 14 the long form (a signed varint line delta, three more varints), 15 no line. */
static int line_locations(struct byte_stream *table, int first_line, int64_t address)
{
    int64_t start = 0;
    int line = first_line;
    int byte = next_byte(table);
    while (byte >= 0) {
        if (!(byte & 0x80))
            return -1; /* not an entry's first byte: not a location table */
        int code = (byte >> 3) & 15;
        int64_t end = start + ((byte & 7) + 1) * CODE_UNIT;
        unsigned value = 0;
        if (code == 13 || code == 14) {
            if (read_varint(table, &value) != 0)
                return -1;
            line += value & 1 ? -(int)(value >> 1) : (int)(value >> 1);
        } else if (code >= 10 && code <= 12) {
            line += code - 10;
        }
        if (address >= start && address < end)
            return code == 15 ? -1 : line;
        /* skip the rest of the entry: every byte up to the next with the top bit set */
        while ((byte = next_byte(table)) >= 0 && !(byte & 0x80))
            ;
        start = end;
    }
    return -1;
}

/* --- frames --- */

/* One frame's code and the byte offset of its current instruction (-1 when not started). */
struct frame_place {
    uintptr_t code;
    int64_t address;
};

static size_t frame_block_size(const struct python_layout *layout)
{
    return layout->model == VIA_FRAME ? layout->frame.instruction + 4 : layout->frame.owner + 1;
}

/* What a frame block says before its code object is read: 0 for a frame to skip unread (a C
 * stack entry frame), -1 for something that is not a frame, 1 otherwise; next gets the caller. */
static int frame_header(const struct python_frames *frames, const unsigned char *block, uintptr_t *code,
                        uintptr_t *next)
{
    const struct python_layout *layout = frames->layout;
    *next = pointer_at(block, layout->frame.previous);
    *code = pointer_at(block, layout->frame.code);
    if (layout->model == VIA_FRAME && pointer_at(block, OBJECT_TYPE) != frames->frame_type)
        return -1;
    if (layout->frame.owner != NA && block[layout->frame.owner] == layout->frame.by_cstack)
        return 0;
    return 1;
}

/* The place of a frame whose code object's fields are code_block: 1, or 0 for a frame to skip
 * (not a code object: 3.13's f_executable of a frame that runs none; an incomplete frame). */
static int frame_place(const struct python_frames *frames, const unsigned char *block,
                       const unsigned char *code_block, struct frame_place *place)
{
    const struct python_layout *layout = frames->layout;
    if (pointer_at(code_block, OBJECT_TYPE) != frames->code_type)
        return 0;
    if (layout->model == VIA_FRAME) {
        int last_instruction = int_at(block, layout->frame.instruction); /* in code units */
        place->address = last_instruction < 0 ? -1 : (int64_t)last_instruction * CODE_UNIT;
        return 1;
    }
    /* _PyFrame_IsIncomplete (Include/internal/pycore_frame.h): a frame still setting up, before
     * its first traceable instruction, is not yet the function's. */
    uintptr_t first = place->code + layout->code.adaptive;
    uintptr_t instruction = pointer_at(block, layout->frame.instruction);
    int first_traceable = int_at(code_block, layout->code.first_traceable);
    if (block[layout->frame.owner] != layout->frame.by_generator &&
        instruction < first + (uintptr_t)first_traceable * CODE_UNIT)
        return 0;
    place->address = instruction >= first ? (int64_t)(instruction - first) : -1;
    return 1;
}

/* --- what the thread has seen before --- */

/* A code object this thread met, with its names, so that a walk through known code costs two
 * reads per frame (the frame, the code object's fields) instead of seven or more. Valid while the
 * code object's fields still read the same: an address reused by another code object has other
 * names and tables. Per thread: the walk takes no lock. */
struct known_code {
    uintptr_t code, filename, name, line_table;
    int first_line, library;
    int64_t address; /* the instruction last asked about, and its line */
    int line;
    char file[MAX_TEXT_BYTES + 1], function[MAX_TEXT_BYTES + 1];
};

#define KNOWN_CODES 8
static _Thread_local struct {
    struct known_code codes[KNOWN_CODES];
    unsigned next; /* round-robin replacement */
} known;

static int line_of(const struct python_frames *frames, pid_t self, struct known_code *code, int64_t address)
{
    if (code->address == address && code->line > 0)
        return code->line;
    struct byte_stream table;
    int line = -1;
    if (address >= 0 && open_bytes(frames, self, code->line_table, &table) == 0)
        line = frames->layout->line_table == PEP626 ? line_pep626(&table, code->first_line, address)
                                                    : line_locations(&table, code->first_line, address);
    code->address = address;
    code->line = line > 0 ? line : code->first_line;
    return code->line;
}

/* The thread's entry for the code object whose fields are code_block; NULL when its file name
 * cannot be read. */
static struct known_code *know_code(const struct python_frames *frames, pid_t self, uintptr_t address,
                                    const unsigned char *code_block)
{
    const struct python_layout *layout = frames->layout;
    struct known_code seen = {.code = address,
                              .filename = pointer_at(code_block, layout->code.filename),
                              .name = pointer_at(code_block, layout->code.name),
                              .line_table = pointer_at(code_block, layout->code.line_table),
                              .first_line = int_at(code_block, layout->code.first_line)};
    for (int i = 0; i < KNOWN_CODES; i++) {
        struct known_code *code = &known.codes[i];
        if (code->code == seen.code && code->filename == seen.filename && code->name == seen.name &&
            code->line_table == seen.line_table && code->first_line == seen.first_line)
            return code;
    }
    if (read_text(frames, self, seen.filename, seen.file, sizeof seen.file) != 0)
        return NULL;
    if (read_text(frames, self, seen.name, seen.function, sizeof seen.function) != 0)
        snprintf(seen.function, sizeof seen.function, "?");
    seen.library = python_source_is_library_in(seen.file, frames->program_folder);
    seen.address = -1;
    struct known_code *slot = &known.codes[known.next++ % KNOWN_CODES];
    *slot = seen;
    return slot;
}

static size_t code_block_size(const struct python_layout *layout)
{
    size_t end = layout->code.line_table;
    if (layout->code.first_traceable != NA && layout->code.first_traceable > end)
        end = layout->code.first_traceable;
    return end + sizeof(uintptr_t);
}

/* "FILE:LINE FUNCTION" of code at line: the one form of a Python source. Returns 1. */
static int source_text(const struct known_code *code, int line, char *source, size_t size)
{
    snprintf(source, size, "%s:%d %s", code->file, line, code->function);
    return 1;
}

static int describe(const struct python_frames *frames, pid_t self, struct known_code *code, int64_t address,
                    char *source, size_t size)
{
    return source_text(code, line_of(frames, self, code, address), source, size);
}

/* Called for each readable frame of a walk, innermost first; returns 1 to stop the walk. */
typedef int frame_visit(void *context, const struct python_frames *frames, pid_t self,
                        struct known_code *code, int64_t address);

/* The innermost frame of the thread whose PyThreadState is at thread_state; 0 when none. cframe
 * (may be NULL) gets the _PyCFrame read on the way (3.11, 3.12), else 0. */
static uintptr_t innermost_frame(const struct python_frames *frames, pid_t self, uintptr_t thread_state,
                                 uintptr_t *cframe)
{
    const struct python_layout *layout = frames->layout;
    uintptr_t frame = 0;
    if (cframe)
        *cframe = 0;
    if (read_memory(self, thread_state + layout->thread.frame, &frame, sizeof frame) != 0)
        return 0;
    if (layout->model == VIA_CFRAME) {
        if (cframe)
            *cframe = frame;
        if (!frame || read_memory(self, frame + layout->thread.current_frame, &frame, sizeof frame) != 0)
            return 0;
    }
    return frame;
}

/* The frames a walk read, innermost first, so that the next capture on the thread can read them
 * again in one system call (capture_again). */
#define TRAIL_FRAMES 24

struct frame_trail {
    int count;    /* frames read; TRAIL_FRAMES + 1: more than the trail holds */
    int complete; /* the walk stopped at the trail's last frame, the user's */
    int at_root;  /* the trail's last frame has no caller: the walk read every frame */
    uintptr_t frame[TRAIL_FRAMES];
    uintptr_t code[TRAIL_FRAMES]; /* its code object, read with it; 0: a frame skipped unread */
};

static void trail_add(struct frame_trail *trail, uintptr_t frame, uintptr_t code)
{
    if (!trail || trail->count > TRAIL_FRAMES)
        return;
    if (trail->count == TRAIL_FRAMES) {
        trail->count++;
        return;
    }
    trail->frame[trail->count] = frame;
    trail->code[trail->count++] = code;
}

/* Walks the frame chain from frame outwards (at most MAX_FRAMES). Each step reads a frame's code
 * object and the next frame in one call: one system call per frame of known code. */
static void walk_frames(const struct python_frames *frames, pid_t self, uintptr_t frame, frame_visit *visit,
                        void *context, struct frame_trail *trail)
{
    const struct python_layout *layout = frames->layout;
    unsigned char code_block[256], block[112], next_block[112];
    size_t code_size = code_block_size(layout), block_size = frame_block_size(layout);
    int have_block = frame && read_memory(self, frame, block, block_size) == 0;
    for (int depth = 0; have_block && depth < MAX_FRAMES; depth++) {
        struct frame_place place;
        uintptr_t next = 0;
        int header = frame_header(frames, block, &place.code, &next);
        if (header < 0)
            break;
        int got = header == 0
                      ? read_memory(self, next, next_block, block_size) == 0 ? 2 : 0
                      : read_two(self, place.code, code_block, code_size, next, next_block, block_size);
        if (header > 0 && got == 0 && trail)
            trail->count = TRAIL_FRAMES + 1; /* an unreadable code object: the trail is not read again */
        trail_add(trail, frame, header > 0 ? place.code : 0);
        struct known_code *code = header > 0 && got > 0 && frame_place(frames, block, code_block, &place)
                                      ? know_code(frames, self, place.code, code_block)
                                      : NULL;
        if (code && visit(context, frames, self, code, place.address))
            return;
        have_block = got == 2;
        if (trail && !next && (header == 0 || got >= 1)) /* the last frame, its code read if it has one */
            trail->at_root = 1;
        memcpy(block, next_block, block_size);
        frame = next;
    }
}

/* python_frames_capture's walk: the first frame of user code, else the innermost. */
struct capture_walk {
    char *source;
    size_t size;
    int found, have_innermost;
    struct known_code innermost; /* a copy: later frames may take its slot */
    int innermost_line;          /* its line, found through the slot, where it stays known */
};

static int visit_for_capture(void *context, const struct python_frames *frames, pid_t self,
                             struct known_code *code, int64_t address)
{
    struct capture_walk *walk = context;
    if (!code->library) {
        walk->found = describe(frames, self, code, address, walk->source, walk->size);
        return 1;
    }
    if (!walk->have_innermost) {
        walk->have_innermost = 1;
        walk->innermost_line = line_of(frames, self, code, address);
        walk->innermost = *code;
    }
    return 0;
}

/* The thread's last capture (its frames, and where they hung from), for capture_again. */
static _Thread_local struct {
    pid_t pid;
    uintptr_t thread_state, cframe;
    struct frame_trail trail;
    unsigned long again; /* captures that read it again */
    uintptr_t wrapper;   /* python_frames_last_wrapper */
} last_capture;

uintptr_t python_frames_last_wrapper(void)
{
    return last_capture.wrapper;
}

int python_frames_code_identity(const struct python_frames *frames, uintptr_t code,
                                struct python_code_identity *identity)
{
    const struct python_layout *layout = frames->layout;
    memset(identity, 0, sizeof *identity);
    /* co_qualname follows co_name from 3.11 on (Include/cpython/code.h); 3.10 has none */
    if (frames->status != PYTHON_FRAMES_READY || layout->version < 0x30b)
        return -1;
    pid_t self = getpid();
    unsigned char block[256];
    size_t size = code_block_size(layout);
    uintptr_t type = 0;
    if (size > sizeof block || read_memory(self, code + OBJECT_TYPE, &type, sizeof type) != 0 ||
        type != frames->code_type || read_memory(self, code, block, size) != 0)
        return -1;
    identity->first_line = int_at(block, layout->code.first_line);
    if (read_text(frames, self, pointer_at(block, layout->code.filename), identity->file,
                  sizeof identity->file) != 0 ||
        read_text(frames, self, pointer_at(block, layout->code.name + sizeof(uintptr_t)),
                  identity->qualified_name, sizeof identity->qualified_name) != 0)
        return -1;
    return 0;
}

unsigned long python_frames_captures_again(void)
{
    return last_capture.again;
}

/* A thread's blocking calls come from few places (a loop's synchronize, its .item()), and the walk
 * costs a system call per frame: 7 of them, about 4 us, for a sync called through
 * torch.cuda.synchronize(device), time the recorded program loses inside each blocking call
 * (tests/gpu/sync_cost.sh). This reads the frames and code objects of the thread's last capture
 * again, all in one process_vm_readv. When the thread's innermost frame, every link and every code
 * object read as before, these are the very bytes the walk would have read one call at a time, and
 * the visit over them gives the walk's source. Returns 1 with walk filled as the walk would have
 * filled it; 0 when anything differs: then the walk runs as before. A walk that stopped at its
 * bound, or at a frame it could not read, is never read again this way. */
static int capture_again(const struct python_frames *frames, pid_t self, uintptr_t thread_state,
                         struct capture_walk *walk)
{
    const struct python_layout *layout = frames->layout;
    const struct frame_trail *trail = &last_capture.trail;
    if (last_capture.pid != self || last_capture.thread_state != thread_state ||
        !(trail->complete || trail->at_root) || trail->count < 1 || trail->count > TRAIL_FRAMES)
        return 0;
    size_t block_size = frame_block_size(layout), code_size = code_block_size(layout);
    unsigned char blocks[TRAIL_FRAMES][112], codes[TRAIL_FRAMES][256];
    uintptr_t slots[2] = {0, 0};
    struct iovec local[2 + 2 * TRAIL_FRAMES], remote[2 + 2 * TRAIL_FRAMES];
    size_t count = 0;
    ssize_t expected = 0;
#define READ_AGAIN(address, buffer, size)                                                                    \
    (local[count] = (struct iovec){(buffer), (size)},                                                        \
     remote[count++] = (struct iovec){(void *)(address), (size)}, expected += (ssize_t)(size))
    READ_AGAIN(thread_state + layout->thread.frame, &slots[0], sizeof slots[0]);
    if (layout->model == VIA_CFRAME)
        READ_AGAIN(last_capture.cframe + layout->thread.current_frame, &slots[1], sizeof slots[1]);
    for (int i = 0; i < trail->count; i++) {
        READ_AGAIN(trail->frame[i], blocks[i], block_size);
        if (trail->code[i])
            READ_AGAIN(trail->code[i], codes[i], code_size);
    }
#undef READ_AGAIN
    if (process_vm_readv(self, local, count, remote, count, 0) != expected)
        return 0;
    uintptr_t innermost = layout->model != VIA_CFRAME       ? slots[0]
                          : slots[0] == last_capture.cframe ? slots[1]
                                                            : 0;
    if (innermost != trail->frame[0])
        return 0;
    int header[TRAIL_FRAMES];
    for (int i = 0; i < trail->count; i++) { /* the same chain of the same code objects */
        uintptr_t code = 0, next = 0;
        header[i] = frame_header(frames, blocks[i], &code, &next);
        if (header[i] < 0 || (header[i] > 0 ? code != trail->code[i] : trail->code[i] != 0) ||
            (i + 1 < trail->count ? next != trail->frame[i + 1] : !trail->complete && next != 0))
            return 0;
    }
    for (int i = 0; i < trail->count; i++) { /* walk_frames' visit, on those bytes */
        struct frame_place place = {.code = trail->code[i]};
        struct known_code *code = header[i] > 0 && frame_place(frames, blocks[i], codes[i], &place)
                                      ? know_code(frames, self, place.code, codes[i])
                                      : NULL;
        if (code && visit_for_capture(walk, frames, self, code, place.address))
            return 1;
    }
    return trail->at_root; /* every frame visited, as the walk would have, and no user's frame */
}

int python_frames_capture(const struct python_frames *frames, char *source, size_t size)
{
    if (frames->status != PYTHON_FRAMES_READY || size == 0)
        return 0;
    uintptr_t thread_state = (uintptr_t)frames->this_thread_state();
    if (!thread_state)
        return 0;          /* Python never ran on this thread */
    pid_t self = getpid(); /* not cached: a fork child must read itself, not its parent */
    struct capture_walk walk = {.source = source, .size = size};
    if (capture_again(frames, self, thread_state, &walk)) {
        last_capture.again++;
    } else {
        walk = (struct capture_walk){.source = source, .size = size};
        uintptr_t cframe = 0;
        struct frame_trail trail = {0};
        walk_frames(frames, self, innermost_frame(frames, self, thread_state, &cframe), visit_for_capture,
                    &walk, &trail);
        last_capture.pid = self;
        last_capture.thread_state = thread_state;
        last_capture.cframe = cframe;
        last_capture.trail = trail;
        last_capture.trail.complete = walk.found; /* the walk stopped at its last frame */
    }
    /* a package's function the user's code called, and through which it reached this call */
    last_capture.wrapper = walk.found && walk.have_innermost ? walk.innermost.code : 0;
    if (walk.found)
        return 1;
    if (!walk.have_innermost)
        return 0;
    return source_text(&walk.innermost, walk.innermost_line, source, size);
}

/* --- other threads: the interpreter's thread list --- */

/* The thread states of the main interpreter, from its list head: next and the OS thread id
 * (3.10 has none: its main thread's state is the list's last, new states being put first). */
static int read_thread_list(const struct python_frames *frames, pid_t self, uintptr_t head_offset,
                            uintptr_t *states, uint32_t *tids, int capacity)
{
    const struct python_layout *layout = frames->layout;
    uintptr_t state = 0;
    if (read_memory(self, frames->interpreter + head_offset, &state, sizeof state) != 0)
        return -1;
    unsigned char block[176];
    size_t block_size = layout->thread.native_id == NA ? THREAD_INTERP + 8 : layout->thread.native_id + 8;
    int count = 0;
    while (state && count < capacity) {
        if (read_memory(self, state, block, block_size) != 0 ||
            pointer_at(block, THREAD_INTERP) != frames->interpreter)
            return -1; /* freed under us or not a thread state: this tick reads nothing */
        states[count] = state;
        tids[count] =
            layout->thread.native_id == NA ? 0 : (uint32_t)pointer_at(block, layout->thread.native_id);
        count++;
        state = pointer_at(block, THREAD_NEXT);
    }
    if (layout->thread.native_id == NA && count > 0)
        tids[count - 1] = (uint32_t)self;
    return count;
}

/* A head offset is right when the list it starts holds the main thread (tid == pid). */
static int head_offset_works(const struct python_frames *frames, pid_t self, uintptr_t offset)
{
    uintptr_t states[MAX_THREAD_STATES];
    uint32_t tids[MAX_THREAD_STATES];
    int count = read_thread_list(frames, self, offset, states, tids, MAX_THREAD_STATES);
    for (int i = 0; i < count; i++)
        if (tids[i] == (uint32_t)self)
            return 1;
    return 0;
}

int python_frames_detect_threads(struct python_frames *frames, char *why, size_t size)
{
    if (size)
        why[0] = '\0';
    if (frames->status != PYTHON_FRAMES_READY)
        return -1;
    void *(*main_interpreter)(void) = NULL;
    void *(*thread_head)(void *) = NULL;
    *(void **)&main_interpreter = symbol("PyInterpreterState_Main");
    *(void **)&thread_head = symbol("PyInterpreterState_ThreadHead");
    if (!main_interpreter || !thread_head) {
        snprintf(why, size, "the interpreter's thread list is not exported");
        return -1;
    }
    /* Both only read a field (Python/pystate.c); called once here, never while sampling. */
    frames->interpreter = (uintptr_t)main_interpreter();
    uintptr_t head = (uintptr_t)thread_head((void *)frames->interpreter);
    pid_t self = getpid();
    const struct python_layout *layout = frames->layout;
    if (frames->interpreter && layout->thread.threads_head != NA &&
        head_offset_works(frames, self, layout->thread.threads_head)) {
        frames->threads_head = layout->thread.threads_head;
        return 0;
    }
    /* 3.12 and 3.13 put threads.head behind other state (3.13: the whole ceval state): the first
     * word equal to the head whose list holds the main thread. */
    static unsigned char interpreter[HEAD_SEARCH_BYTES];
    if (frames->interpreter && head &&
        read_memory(self, frames->interpreter, interpreter, sizeof interpreter) == 0)
        for (size_t offset = 0; offset + sizeof head <= sizeof interpreter; offset += sizeof head)
            if (pointer_at(interpreter, offset) == head && head_offset_works(frames, self, offset)) {
                frames->threads_head = offset;
                return 0;
            }
    frames->interpreter = 0;
    snprintf(why, size, "the interpreter's thread list was not found (no list holding the main thread)");
    return -1;
}

int python_frames_thread_states(const struct python_frames *frames, uintptr_t *states, uint32_t *tids,
                                int capacity)
{
    if (frames->status != PYTHON_FRAMES_READY || !frames->interpreter)
        return 0;
    int count = read_thread_list(frames, getpid(), frames->threads_head, states, tids, capacity);
    return count < 0 ? 0 : count;
}

/* python_frames_stack's walk: every frame, innermost first, one line each. */
struct stack_walk {
    char *text;
    size_t size, used;
    int count, max_frames;
};

static int visit_for_stack(void *context, const struct python_frames *frames, pid_t self,
                           struct known_code *code, int64_t address)
{
    struct stack_walk *walk = context;
    char line[2 * MAX_TEXT_BYTES + 32];
    describe(frames, self, code, address, line, sizeof line);
    size_t length = strlen(line) + (walk->count > 0);
    if (walk->used + length + 1 > walk->size)
        return 1;
    walk->used += (size_t)snprintf(walk->text + walk->used, walk->size - walk->used, "%s%s",
                                   walk->count > 0 ? "\n" : "", line);
    return ++walk->count >= walk->max_frames;
}

int python_frames_stack(const struct python_frames *frames, uintptr_t thread_state, int max_frames,
                        char *text, size_t size)
{
    if (frames->status != PYTHON_FRAMES_READY || size == 0 || !thread_state)
        return 0;
    pid_t self = getpid();
    struct stack_walk walk = {.text = text, .size = size, .max_frames = max_frames};
    text[0] = '\0';
    walk_frames(frames, self, innermost_frame(frames, self, thread_state, NULL), visit_for_stack, &walk,
                NULL);
    return walk.count;
}

/* --- detection --- */

static void *symbol(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

/* The running interpreter's PY_VERSION_HEX: Py_Version from 3.11 (Include/pylifecycle.h), the
 * "3.10.13 (main, ...)" text of Py_GetVersion before it (a static buffer: no GIL needed). */
static unsigned running_version(void)
{
    const unsigned long *version = symbol("Py_Version");
    if (version)
        return (unsigned)*version;
    const char *(*get_version)(void) = NULL;
    *(void **)&get_version = symbol("Py_GetVersion");
    unsigned major = 0, minor = 0, micro = 0;
    if (!get_version || sscanf(get_version(), "%u.%u.%u", &major, &minor, &micro) < 2)
        return 0;
    return major << 24 | minor << 16 | micro << 8;
}

static enum python_frames_status unsupported(struct python_frames *frames, char *why, size_t size,
                                             const char *reason)
{
    snprintf(why, size, "Python %u.%u: %s; no Python call sources are recorded", frames->version_hex >> 24,
             (frames->version_hex >> 16) & 0xFF, reason);
    frames->layout = NULL;
    return frames->status = PYTHON_FRAMES_UNSUPPORTED;
}

/* The folder of the script this interpreter runs, from /proc/self/cmdline and the working folder
 * (python_source_program_folder): files below it are the user's whatever the folder's name. */
static void find_program_folder(struct python_frames *frames)
{
    static char line[8192];
    char *argv[64], cwd[4096];
    frames->program_folder[0] = '\0';
    FILE *file = fopen("/proc/self/cmdline", "r");
    if (!file)
        return;
    size_t length = fread(line, 1, sizeof line - 1, file);
    fclose(file);
    line[length] = '\0';
    int count = 0;
    for (size_t at = 0; at < length && count < 64; at += strlen(line + at) + 1)
        argv[count++] = line + at;
    if (!getcwd(cwd, sizeof cwd) || !python_source_program_folder(argv, count, cwd, frames->program_folder,
                                                                  sizeof frames->program_folder))
        frames->program_folder[0] = '\0';
}

enum python_frames_status python_frames_detect(struct python_frames *frames, char *why, size_t size)
{
    memset(frames, 0, sizeof *frames);
    if (size)
        why[0] = '\0';
    *(void **)&frames->this_thread_state = symbol("PyGILState_GetThisThreadState");
    if (!frames->this_thread_state)
        return frames->status = PYTHON_FRAMES_ABSENT;
    frames->version_hex = running_version();
    unsigned major = frames->version_hex >> 24, minor = (frames->version_hex >> 16) & 0xFF;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].version == (major << 8 | minor))
            frames->layout = &layouts[i];
    if (!frames->layout)
        return unsupported(frames, why, size, "no frame layout known for this version (3.10 to 3.13 are)");
    frames->code_type = (uintptr_t)symbol("PyCode_Type");
    frames->unicode_type = (uintptr_t)symbol("PyUnicode_Type");
    frames->bytes_type = (uintptr_t)symbol("PyBytes_Type");
    frames->frame_type = (uintptr_t)symbol("PyFrame_Type");
    uintptr_t type_type = (uintptr_t)symbol("PyType_Type");
    if (!frames->code_type || !frames->unicode_type || !frames->bytes_type || !frames->frame_type ||
        !type_type)
        return unsupported(frames, why, size, "its type objects are not exported");
    uintptr_t header_type = 0;
    if (read_memory(getpid(), frames->unicode_type + OBJECT_TYPE, &header_type, sizeof header_type) != 0)
        return unsupported(frames, why, size, "process_vm_readv on the process itself is refused");
    /* A free-threaded (3.13t) or Py_TRACE_REFS build has a longer object header: every offset here
     * would be wrong. */
    if (header_type != type_type)
        return unsupported(frames, why, size, "a free-threaded or debug build (another object header)");
    find_program_folder(frames);
    frames->status = PYTHON_FRAMES_READY;
    return frames->status;
}
