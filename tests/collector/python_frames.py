"""The collector's Python source capture (collector/python_frames.h), called as PyTorch calls CUDA.

Usage: python3 python_frames.py LIBCALL_SITE_PROBE.so
libcall_site_probe.so wraps python_frames_capture; ctypes releases the GIL around the call, exactly
like torch's gil_scoped_release around torch.cuda.synchronize, so the capture runs on a thread that
holds no GIL while another may. Each case calls the probe at a known line of a known function and
asserts the returned "FILE:LINE FUNCTION" is exactly CPython's own answer (sys._getframe) for that
call. On a version without a known frame layout the probe must say "unsupported" and return nothing.
With OVERLAPSCOPE set (the CLI), also the collector's whole road: blocking calls made from a known
line, kept by call_site.h as the CUDA callbacks would, written into a hand-built trace of seed 004's
loop, and `overlapscope report` naming that line for the host-sync idle time.
"""
import ctypes
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

lib = ctypes.CDLL(sys.argv[1])
lib.probe_python_status.restype = ctypes.c_char_p
lib.probe_python_source.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
lib.probe_python_source_on_native_thread.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
lib.probe_blocking_call.argtypes = [ctypes.c_int64]
lib.probe_python_captures_again.restype = ctypes.c_ulong
lib.probe_write_sync_trace.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
FILE = sys._getframe().f_code.co_filename
failures = []
checks = 0


def check(label, actual, expected):
    global checks
    checks += 1
    if actual != expected:
        failures.append(f"{label}: got {actual!r}, expected {expected!r}")


def known_function():
    buffer = ctypes.create_string_buffer(512)
    line = sys._getframe().f_lineno + 1
    found = lib.probe_python_source(buffer, len(buffer))
    return found, buffer.value.decode(), f"{FILE}:{line} known_function"


def known_generator():
    buffer = ctypes.create_string_buffer(512)
    line = sys._getframe().f_lineno + 1
    found = lib.probe_python_source(buffer, len(buffer))
    yield found, buffer.value.decode(), f"{FILE}:{line} known_generator"


def write_module(folder, name, text):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".py")
    with open(path, "w", encoding="utf-8") as module:
        module.write(text)
    return path


def far_function_source(gap):
    """A function whose probe call is `gap` lines and `gap` statements below its def: long line
    deltas and long location tables (3.11+ long form varints, 3.10 multi-entry deltas)."""
    body = "".join(f"    x{i} = {i} * 2\n" for i in range(gap))
    return ("import ctypes\n\n\ndef far_function(lib):\n    buffer = ctypes.create_string_buffer(512)\n" + body +
            "    found = lib.probe_python_source(buffer, len(buffer))\n    return found, buffer.value.decode()\n")


def main():
    status = lib.probe_python_status().decode()
    version = sys.version_info[:2]
    if not (3, 10) <= version <= (3, 13):
        check("status", status.startswith(f"unsupported: Python {version[0]}.{version[1]}:"), True)
        check("nothing recorded", known_function()[0], 0)
        return
    check("status", status, "ready")

    found, source, expected = known_function()
    check("main thread", (found, source), (1, expected))
    found, source, expected = next(known_generator())
    check("generator", (found, source), (1, expected))

    folder = tempfile.mkdtemp(prefix="python_frames_")
    for gap in (3, 70, 700):
        path = write_module(os.path.join(folder, "user"), f"far{gap}", far_function_source(gap))
        namespace = {}
        exec(compile(open(path).read(), path, "exec"), namespace)
        line = 6 + gap
        check(f"line {line}", namespace["far_function"](lib), (1, f"{path}:{line} far_function"))

    # Names that are not ASCII: a Latin-1 file name (1 byte per character inside CPython), a
    # function name with CJK characters (2 bytes) and one beyond the BMP (4 bytes).
    # A name longer than the 255 bytes kept is cut between whole characters.
    for function in ("pr\u00fcfe_\u51fd\u6570", "step_\U00020000", "\u00e9" * 200):
        path = write_module(os.path.join(folder, "donn\u00e9es"), "unicode_names",
                            f"def {function}(lib, buffer):\n    return lib.probe_python_source(buffer, len(buffer))\n")
        namespace = {}
        exec(compile(open(path, encoding="utf-8").read(), path, "exec"), namespace)
        buffer = ctypes.create_string_buffer(1024)
        namespace.get(function, lambda *_: None)(lib, buffer)
        kept = ""
        for character in function:
            if len((kept + character).encode()) > 255:
                break
            kept += character
        check(f"text {function[:12]!a}", buffer.value.decode("utf-8", "replace"), f"{path}:2 {kept}")

    # A package frame (site-packages/...) between the user's line and the call: the user's line
    # is the source, as the report groups by it.
    library = write_module(os.path.join(folder, "site-packages"), "fake_sync",
                           "def synchronize(lib, buffer):\n    return lib.probe_python_source(buffer, len(buffer))\n"
                           "\n\ndef repeat(lib, buffer, results):\n    before = lib.probe_python_captures_again()\n"
                           "    for _ in range(4):\n        synchronize(lib, buffer)\n"
                           "        results.append(buffer.value.decode())\n"
                           "    results.append(lib.probe_python_captures_again() - before)\n")
    sys.path.insert(0, os.path.dirname(library))
    import fake_sync

    def calls_a_package():
        buffer = ctypes.create_string_buffer(512)
        line = sys._getframe().f_lineno + 1
        found = fake_sync.synchronize(lib, buffer)
        return found, buffer.value.decode(), f"{FILE}:{line} calls_a_package"

    found, source, expected = calls_a_package()
    check("through a package", (found, source), (1, expected))

    # The same frames again (a loop's sync): the capture reads the last one's frames in one system
    # call; every change of line, caller or code below them must still show.
    def two_lines():
        buffer = ctypes.create_string_buffer(512)
        results = []
        for _ in range(3):
            line = sys._getframe().f_lineno + 1
            fake_sync.synchronize(lib, buffer)
            results.append((buffer.value.decode(), f"{FILE}:{line} two_lines"))
            line = sys._getframe().f_lineno + 1
            fake_sync.synchronize(lib, buffer)
            results.append((buffer.value.decode(), f"{FILE}:{line} two_lines"))
        return results

    before = lib.probe_python_captures_again()
    results = two_lines()
    check("again, line by line", [got for got, _ in results], [want for _, want in results])
    check("again: read in one call", lib.probe_python_captures_again() - before >= 5, True)

    def caller_a():
        return calls_a_package()

    def caller_b():
        return calls_a_package()

    # calls_a_package from two callers at one depth (its frame at the same address each time), then
    # another function of the same depth in the frame calls_a_package had: each its own source.
    seen_again = [caller_a(), caller_b(), caller_a(), calls_a_package()]

    def same_depth():
        buffer = ctypes.create_string_buffer(512)
        line = sys._getframe().f_lineno + 1
        found = fake_sync.synchronize(lib, buffer)
        return found, buffer.value.decode(), f"{FILE}:{line} same_depth"

    seen_again += [same_depth(), calls_a_package(), same_depth()]
    check("again, callers and functions", [(found, source) for found, source, _ in seen_again],
          [(1, expected) for _, _, expected in seen_again])

    # Only package frames (threading.py, site-packages): the innermost one is the source.
    buffer = ctypes.create_string_buffer(512)
    thread = threading.Thread(target=fake_sync.synchronize, args=(lib, buffer))
    thread.start()
    thread.join()
    check("package frames only", buffer.value.decode(), f"{library}:2 synchronize")
    results = []
    thread = threading.Thread(target=fake_sync.repeat, args=(lib, buffer, results))
    thread.start()
    thread.join()
    check("package frames only, again", results, [f"{library}:2 synchronize"] * 4 + [3])

    # A program kept in a folder named torch/ (as workloads/torch/ here): its own files are the
    # user's, though their path holds "torch/"; run with a relative path, as `python3 torch/prog.py`.
    program = write_module(os.path.join(folder, "torch"), "prog",
                           "import ctypes, sys\nsys.path.insert(0, sys.argv[2])\nimport fake_sync\n\n\n"
                           "def main():\n    lib = ctypes.CDLL(sys.argv[1])\n"
                           "    lib.probe_python_source.argtypes = [ctypes.c_char_p, ctypes.c_size_t]\n"
                           "    buffer = ctypes.create_string_buffer(512)\n"
                           "    fake_sync.synchronize(lib, buffer)\n    print(buffer.value.decode())\n\n\nmain()\n")
    run = subprocess.run([sys.executable, os.path.join("torch", "prog.py"), os.path.abspath(sys.argv[1]),
                          os.path.dirname(library)],
                         cwd=folder, capture_output=True, text=True)
    check("a program in a torch/ folder", run.stdout.strip(), f"{program}:10 main")

    # A second Python thread captures its own line, many times, while the main thread runs Python.
    seen = []

    def worker():
        for _ in range(200):
            seen.append(known_function())

    thread = threading.Thread(target=worker)
    thread.start()
    spin = 0
    while thread.is_alive():
        spin = (spin * 31 + 7) % 1000003
    thread.join()
    check("worker thread", {(found, source == expected) for found, source, expected in seen}, {(1, True)})

    # The main thread captures while a second thread runs Python.
    stop = []

    def busy():
        spin = 0
        while not stop:
            spin = (spin * 31 + 7) % 1000003

    thread = threading.Thread(target=busy)
    thread.start()
    main_results = {known_function()[1:] for _ in range(200)}
    stop.append(True)
    thread.join()
    check("main thread beside a busy one", len(main_results) == 1 and all(a == b for a, b in main_results), True)

    # A thread Python never ran on has no Python source.
    buffer = ctypes.create_string_buffer(512)
    check("native thread", (lib.probe_python_source_on_native_thread(buffer, len(buffer)), buffer.value), (0, b""))


def blocking_loop(iterations):
    line = sys._getframe().f_lineno + 2
    for i in range(iterations):
        lib.probe_blocking_call(10 + 2 * i)
    return f"{FILE}:{line} blocking_loop"


def collector_road(overlapscope):
    """3 iterations: 3 cudaDeviceSynchronize and 3 cuCtxSynchronize inside them, one source."""
    folder = tempfile.mkdtemp(prefix="call_sources_")
    # (sources on, driver calls inside runtime calls recorded too: CUPTI's activity records;
    # sources on, only the outer call recorded: the collector's callback records; sources off)
    for enabled, inner in ((1, 1), (1, 0), (0, 0)):
        check("sites start", lib.probe_sites_start(enabled, inner), 0)
        expected = blocking_loop(3)
        error = ctypes.create_string_buffer(1024)
        name = f"sync{enabled}{inner}.db"
        status = lib.probe_write_sync_trace(folder.encode(), name.encode(), 3, error, len(error))
        check("trace written", (status, error.value), (0, b""))
        path = os.path.join(folder, name)
        db = sqlite3.connect(path)
        rows = db.execute("SELECT c.kind, COUNT(*), s.value FROM call_sources c JOIN strings s ON s.id = c.source_id"
                          " GROUP BY c.kind, s.value").fetchall()
        ids = [r[0] for r in db.execute("SELECT correlation_id FROM call_sources ORDER BY 1")]
        db.close()
        if not enabled:  # OVERLAPSCOPE_CALL_SOURCES=0
            check("disabled: no rows", rows, [])
            continue
        if inner:
            check("call_sources rows", (rows, ids), ([(1, 6, expected)], [10, 11, 12, 13, 14, 15]))
        else:
            check("call_sources rows, outer calls", (rows, ids), ([(1, 3, expected)], [10, 12, 14]))
        report = json.loads(subprocess.run([overlapscope, "report", "--json", path], capture_output=True,
                                           check=True, text=True).stdout)
        sync = [c for c in report["devices"][0]["idle"]["causes"] if c["cause"] == "host-sync"]
        check("report --json host-sync source", [(c["label"], c["source"]) for c in sync],
              [("cudaDeviceSynchronize", expected)])
        text = subprocess.run([overlapscope, "report", path], capture_output=True, check=True, text=True).stdout
        # (the source follows the count, or wraps onto lines of its own when longer than the line)
        check("report text", re.sub(r"\s", "", f"2x at {expected}") in re.sub(r"\s", "", text), True)


def wrapper_timing():
    """python_calls.h: the package function through which a blocking call was made (a wrapper, as
    torch.cuda.synchronize) is timed from its next call on, entry to return, through sys.monitoring
    (CPython 3.12+); a user's own function, and a wrapper sys.modules cannot name, are not."""
    lib.probe_python_calls_name.restype = ctypes.c_char_p
    lib.probe_python_calls_counts.restype = ctypes.c_char_p
    lib.probe_python_calls_take.restype = ctypes.c_long
    folder = tempfile.mkdtemp(prefix="wrappers_")
    path = write_module(os.path.join(folder, "site-packages"), "fake_cuda",
                        "import time\n\n\ndef synchronize(lib, correlation, pause):\n    time.sleep(pause)\n"
                        "    lib.probe_blocking_call(correlation)\n    time.sleep(pause)\n\n\n"
                        "class Stream:\n    def synchronize(self, lib, correlation):\n"
                        "        lib.probe_blocking_call(correlation)\n\n\n"
                        "def make_nested():\n    def inner(lib, correlation):\n"
                        "        lib.probe_blocking_call(correlation)\n    return inner\n")
    sys.path.insert(0, os.path.dirname(path))
    import fake_cuda

    check("wrappers: sites start", lib.probe_sites_start(1, 0), 0)
    lib.probe_python_calls_enable()
    nested = fake_cuda.make_nested()
    stream = fake_cuda.Stream()
    fake_cuda.synchronize(lib, 1, 0)  # noted here: timed from the next call on
    stream.synchronize(lib, 3)
    nested(lib, 5)
    lib.probe_blocking_call(7)  # the user's own line: nothing to note
    for _ in range(20000):  # the pending call runs between bytecodes of the main thread
        pass
    capacity = 64
    starts, ends = (ctypes.c_int64 * capacity)(), (ctypes.c_int64 * capacity)()
    threads, functions = (ctypes.c_uint32 * capacity)(), (ctypes.c_uint32 * capacity)()
    lib.probe_python_calls_take(starts, ends, threads, functions, capacity)  # the noting calls' returns
    before = time.time_ns()
    for i in range(5):
        fake_cuda.synchronize(lib, 10 + 2 * i, 0.001)
    stream.synchronize(lib, 30)
    nested(lib, 32)
    after = time.time_ns()
    count = lib.probe_python_calls_take(starts, ends, threads, functions, capacity)
    counts = lib.probe_python_calls_counts().decode()
    if sys.version_info[:2] < (3, 12):
        check("wrappers: none before 3.12", count, 0)
        if sys.version_info[:2] == (3, 11):  # the first noted; 3.10 has no qualified names to note
            check("wrappers: why", counts, "0 1 this CPython has no sys.monitoring (3.12 or later has)")
        return
    names = [lib.probe_python_calls_name(functions[i]).decode() for i in range(count)]
    check("wrappers: the calls timed", names,
          [f"{path}:4 synchronize"] * 5 + [f"{path}:11 Stream.synchronize"])
    check("wrappers: within the loop, on this thread",
          all(before <= starts[i] < ends[i] <= after and threads[i] == threading.get_native_id()
              for i in range(count)), True)
    check("wrappers: the whole function (two 1 ms pauses)",
          all(ends[i] - starts[i] >= 2000000 for i in range(5)), True)
    check("wrappers: one not found", counts.split(" ")[:2] + [counts.endswith(
        "make_nested.<locals>.inner not found in sys.modules by its qualified name")], ["2", "1", True])


main()
if (3, 10) <= sys.version_info[:2] <= (3, 13):
    wrapper_timing()
if "OVERLAPSCOPE" in os.environ and (3, 10) <= sys.version_info[:2] <= (3, 13):
    collector_road(os.environ["OVERLAPSCOPE"])
for failure in failures:
    print("FAIL", failure)
print(f"python {sys.version.split()[0]}: {checks - len(failures)} of {checks} checks passed")
sys.exit(1 if failures else 0)
