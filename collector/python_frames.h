/* python_frames.h: the Python line a thread is on, read from CPython's own structures without
 * CPython's help.
 *
 * The collector asks at blocking CUDA calls (collector/call_site.h) where the program made the
 * call: "train.py:17 step". It runs inside a CUDA callback, on the thread that made the call,
 * often while that thread has released the GIL (PyTorch releases it around
 * torch.cuda.synchronize; ctypes around every foreign call) and while another thread holds the
 * GIL and may itself wait on CUDA. So nothing here takes the GIL, calls a CPython function that
 * allocates, increfs or needs the GIL, or blocks:
 *   - the thread's PyThreadState comes from PyGILState_GetThisThreadState, which only reads
 *     thread-specific storage (pthread_getspecific) and is safe without the GIL;
 *   - the frame chain, code objects, strings and line tables are read as memory, with per-version
 *     layouts (3.10 PyFrameObject via tstate->frame; 3.11 and 3.12 _PyInterpreterFrame via
 *     tstate->cframe->current_frame; 3.13 tstate->current_frame). Only this thread pushes and pops
 *     its frames, and it is inside the CUDA call, so its chain is stable while we read it;
 *   - every read goes through process_vm_readv on our own pid: a wrong pointer (a layout this
 *     code misjudged) returns an error instead of SIGSEGV in the user's job, and every object is
 *     checked against its type (PyCode_Type, PyUnicode_Type, PyBytes_Type, PyFrame_Type) before
 *     it is trusted. Walks are bounded (frames, string and line-table bytes).
 * No Python.h and no link to libpython: the symbols come from dlsym(RTLD_DEFAULT), so a process
 * that does not run Python costs one failed lookup at start. The version comes from Py_Version
 * (3.11+) or Py_GetVersion (3.10); any other version (or a free-threaded or debug build, whose
 * object header differs) is never guessed at: python_frames_detect says why and nothing is read.
 * Offsets: CPython 3.10.13, 3.11.7, 3.12.1 and 3.13.0 headers (Include/cpython/frameobject.h,
 * pystate.h, code.h, unicodeobject.h; Include/internal/pycore_frame.h), x86-64 and aarch64 (LP64). */
#ifndef OVERLAPSCOPE_PYTHON_FRAMES_H
#define OVERLAPSCOPE_PYTHON_FRAMES_H

#include <stddef.h>
#include <stdint.h>

struct python_layout; /* python_frames.c: offsets of one CPython version */

enum python_frames_status {
    PYTHON_FRAMES_ABSENT = 0,  /* the process does not run CPython (no symbols) */
    PYTHON_FRAMES_READY,       /* a known version: python_frames_capture reads frames */
    PYTHON_FRAMES_UNSUPPORTED, /* CPython, but a version or build this code has no layout for */
};

struct python_frames {
    enum python_frames_status status;
    unsigned version_hex; /* PY_VERSION_HEX of the running interpreter, 0 when unknown */
    const struct python_layout *layout;
    void *(*this_thread_state)(void);                          /* PyGILState_GetThisThreadState */
    uintptr_t code_type, unicode_type, bytes_type, frame_type; /* type objects' addresses */
    uintptr_t interpreter;     /* the main PyInterpreterState (python_frames_detect_threads); 0: unknown */
    size_t threads_head;       /* where its thread list's head lies in it */
    char program_folder[1024]; /* the script's folder, its files the user's (python_source.h); "" none */
};

/* Looks for a running CPython in this process and chooses its layout. Returns the status; for
 * PYTHON_FRAMES_UNSUPPORTED, why (size bytes) says which version or build and why nothing will
 * be read (for the trace's warnings). Call once, before the first capture; not thread-safe. */
enum python_frames_status python_frames_detect(struct python_frames *frames, char *why, size_t size);

/* Where the calling thread is in its Python program: "FILE:LINE FUNCTION" of its innermost frame
 * of user code (common/python_source.h), or of its innermost frame when every frame within the
 * walk's bound is Python's or a package's. The line comes from the code object's line table
 * (PEP 626 in 3.10, the location table from 3.11); where that has no line for the instruction,
 * the function's first line. Returns 1 with source filled, 0 when the thread has no Python
 * frame (a thread Python never ran on, the frames unreadable, status not READY). Async-signal
 * tolerant: no lock, no allocation, no CPython call other than the thread-state lookup. */
int python_frames_capture(const struct python_frames *frames, char *source, size_t size);

/* How many of this thread's captures read the frames of its previous capture again in one system
 * call instead of walking them (the same source; tests/collector/python_frames.py counts them). */
unsigned long python_frames_captures_again(void);

/* The code object of the calling thread's innermost frame at its last python_frames_capture, when
 * that frame was a package's and a frame of user code was further out: the library function
 * through which the user's call reached CUDA (torch.cuda.synchronize). 0 otherwise. Its address
 * is only a name: the object may be gone by the time it is looked at (python_calls.h). */
uintptr_t python_frames_last_wrapper(void);

/* What names a code object wherever it lives: its file, qualified name and first line. */
struct python_code_identity {
    char file[256], qualified_name[256];
    int first_line;
};

/* Reads code's identity with the guarded reads (a freed or foreign address is an error, never a
 * fault). CPython 3.11 and later (3.10's code objects have no qualified name). Returns 0, or -1. */
int python_frames_code_identity(const struct python_frames *frames, uintptr_t code,
                                struct python_code_identity *identity);

/* --- other threads (the host sampler, collector/host_sampler.h) ---
 * A thread's frames are read from another thread while it runs: a frame may be popped and its
 * memory reused during the walk. Every read is process_vm_readv and every object is type-checked,
 * so a torn walk yields a shorter or stranger stack, never a fault; the walk is bounded. */

/* Finds the main interpreter and the head of its thread list (PyInterpreterState.threads.head):
 * the header offsets of 3.10 and 3.11 (Include/internal/pycore_interp.h), checked; for 3.12 and
 * 3.13, whose interpreter state puts it behind other fields, the first word of the state equal to
 * PyInterpreterState_ThreadHead whose list holds the main thread (tid == pid). Calls
 * PyInterpreterState_Main and PyInterpreterState_ThreadHead once (both only read a field). Returns
 * 0, or -1 with why filled; call after python_frames_detect, before the first
 * python_frames_thread_states. Not thread-safe. */
int python_frames_detect_threads(struct python_frames *frames, char *why, size_t size);

/* The interpreter's thread states (at most capacity) and their OS thread ids (native_thread_id;
 * in 3.10, which has none, the main thread's state, the list's last, gets the pid and the others
 * 0). Returns how many; 0 when the list cannot be read now (a thread state freed under the walk).
 * No lock, no allocation, no CPython call. */
int python_frames_thread_states(const struct python_frames *frames, uintptr_t *states, uint32_t *tids,
                                int capacity);

/* The Python stack of the thread whose PyThreadState is thread_state, innermost first, one
 * "FILE:LINE FUNCTION" per line, \n-separated, at most max_frames (library frames included).
 * Returns the number of frames written into text (0: none readable). Same guarantees as above. */
int python_frames_stack(const struct python_frames *frames, uintptr_t thread_state, int max_frames,
                        char *text, size_t size);

#endif
