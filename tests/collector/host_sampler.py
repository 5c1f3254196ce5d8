"""The host sampler (collector/host_sampler.h) in a real CPython, read back from its trace.

Usage: python3 host_sampler.py LIBHOST_SAMPLER_PROBE.so
The probe starts the sampler on this process at 200 Hz, writing through the collector's writer
into a trace. The main thread then spins in spin_here() (its samples must say state R and name
spin_here as the innermost frame), sleeps in sleep_here() (state S, sleep_here), while a noted
side thread (as a thread that made a CUDA call is noted) spins in side_spin() and a forked child
burns CPU (its process samples must show CPU time, parent = this process). By then the garbage
collector's hook (collector/python_gc.h) is in gc.callbacks, once: the sampler asked CPython to run
the install on the main thread. The main thread then frees cycles in gc_here(): samples taken while a
collection ran start with the marker line above the frame that collected, about as often as the
collections took of the time. On a Python without a
frame layout (not 3.10-3.13) the samples must still come, without stacks; 3.10's thread states
carry no OS thread id, so there only the main thread has stacks.
"""
import ctypes
import gc  # as torch imports it: the hook is installed only into an imported gc (sys.modules)
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
import time

lib = ctypes.CDLL(sys.argv[1])
lib.probe_start.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
lib.probe_stop.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
lib.probe_stop.restype = ctypes.c_longlong
lib.probe_now_ns.restype = ctypes.c_int64
failures = []
checks = 0


def check(label, condition, detail=""):
    global checks
    checks += 1
    if not condition:
        failures.append(f"{label} {detail}")


def spin_here(seconds):
    end = time.monotonic() + seconds
    x = 0
    while time.monotonic() < end:
        x = (x * 31 + 7) % 1000003
    return x


def sleep_here(seconds):
    time.sleep(seconds)


stop_side = []
main_sleeps = threading.Event()


def side_spin():
    """Waits while the main thread spins (no contention for the GIL), then spins while it sleeps."""
    lib.probe_note_thread()
    main_sleeps.wait()
    x = 0
    while not stop_side:
        x = (x * 31 + 7) % 1000003


class Node:
    def __init__(self):
        self.other = None


def gc_here(seconds):
    """Builds cycles that only the collector frees and frees them (gc.collect(), and the collections
    the allocations trigger); returns the time every collection took, timed by a second callback."""
    times = []
    gc.callbacks.append(lambda phase, info: times.append(time.monotonic()))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(50_000):
            first, second = Node(), Node()
            first.other, second.other = second, first
        gc.collect()
    gc.callbacks.pop()
    return sum(times[i + 1] - times[i] for i in range(0, len(times) - 1, 2))


def burn_child():
    end = time.monotonic() + 0.8
    x = 0
    while time.monotonic() < end:
        x = (x * 31 + 7) % 1000003
    os._exit(0)


def main():
    folder = tempfile.mkdtemp(prefix="host_sampler_")
    path = os.path.join(folder, "samples.db")
    error = ctypes.create_string_buffer(512)
    check("start", lib.probe_start(path.encode(), 200, error, len(error)) == 0, error.value)
    side = threading.Thread(target=side_spin)
    side.start()
    child = os.fork()
    if child == 0:
        burn_child()
    process_cpu_start = sum(os.times()[:2])
    spin_start = lib.probe_now_ns()
    thread_cpu_start = time.thread_time()
    spin_here(0.6)
    thread_cpu = time.thread_time() - thread_cpu_start
    spin_end = lib.probe_now_ns()
    main_sleeps.set()
    sleep_here(0.6)
    sleep_end = lib.probe_now_ns()
    os.waitpid(child, 0)
    stop_side.append(True)
    side.join()
    process_cpu = sum(os.times()[:2]) - process_cpu_start

    # The gc hook: the sampler asked for it (Py_AddPendingCall, no GIL), the main thread ran it.
    check("gc hook: installed at the sampler's request", lib.probe_gc_status() == 1, f"{lib.probe_gc_status()}")
    check("gc hook: installed once", lib.probe_gc_install() == 1 and len(gc.callbacks) == 1, f"{gc.callbacks}")
    seen = []
    gc.callbacks.append(lambda phase, info: seen.append((phase, lib.probe_gc_running_on(threading.get_native_id()))))
    gc.collect()
    check("gc hook: marks the collecting thread", seen == [("start", 1), ("stop", 0)], f"{seen}")
    gc.callbacks.pop()
    time.sleep(0.2)  # the CPU checks above end 100 ms after sleep_end
    gc_start = lib.probe_now_ns()
    collecting = gc_here(0.8)
    gc_end = lib.probe_now_ns()
    dropped = lib.probe_stop(error, len(error))
    note = error.value.decode()
    check("stop", dropped == 0, f"dropped {dropped}: {note}")

    db = sqlite3.connect(path)
    pid = os.getpid()
    margin = 50_000_000  # a sample near a boundary may see either side

    def samples(tid, start, end):
        return db.execute("SELECT s.state, h.frames FROM host_samples s LEFT JOIN host_stacks h ON h.id = s.stack_id"
                          " WHERE s.pid = ? AND s.tid = ? AND s.time_ns BETWEEN ? AND ?",
                          (pid, tid, start + margin, end - margin)).fetchall()

    def innermost(frames):
        return frames.split("\n")[0].split(" ")[-1] if frames else None

    python_ok = (3, 10) <= sys.version_info[:2] <= (3, 13)
    spin = samples(pid, spin_start, spin_end)
    check("spin samples", len(spin) >= 40, f"{len(spin)} samples at 200 Hz in 0.5 s")
    running = [s for s in spin if s[0] == "R"]
    check("spin: running", len(running) >= 0.8 * len(spin), f"states {[s[0] for s in spin]}")
    if python_ok:
        named = [s for s in spin if innermost(s[1]) == "spin_here"]
        check("spin: spin_here", len(named) >= 0.9 * len(spin), f"stacks {set(s[1] for s in spin)}")
        check("spin: caller", all("main" in (s[1] or "") for s in named[:5]), f"{named[:1]}")
    sleep = samples(pid, spin_end, sleep_end)
    check("sleep samples", len(sleep) >= 40, f"{len(sleep)}")
    sleeping = [s for s in sleep if s[0] == "S"]
    check("sleep: sleeping", len(sleeping) >= 0.9 * len(sleep), f"states {[s[0] for s in sleep]}")
    if python_ok:
        named = [s for s in sleep if innermost(s[1]) == "sleep_here"]
        check("sleep: sleep_here", len(named) >= 0.9 * len(sleep), f"stacks {set(s[1] for s in sleep)}")
        frames = max((len(s[1].split("\n")) for s in sleep if s[1]), default=0)
        check("at most 8 frames", 0 < frames <= 8, f"{frames}")

    side_tid = db.execute("SELECT DISTINCT tid FROM host_samples WHERE tid != ?", (pid,)).fetchall()
    check("side thread sampled", len(side_tid) == 1, f"{side_tid}")
    if side_tid and sys.version_info[:2] == (3, 10):
        # 3.10's thread states carry no OS thread id: only the main thread's stack is known.
        check("3.10: no side thread stack", db.execute("SELECT COUNT(*) FROM host_samples WHERE tid = ? AND"
                                                       " stack_id IS NOT NULL", side_tid[0]).fetchone()[0] == 0)
    elif side_tid and python_ok:
        waiting = samples(side_tid[0][0], spin_start, spin_end)
        check("side thread waits: S in wait", waiting and all(s[0] == "S" and innermost(s[1]) == "wait"
                                                              for s in waiting), f"{set(waiting)}")
        check("side thread waits: called from side_spin", all("side_spin" in s[1] for s in waiting))
        side_rows = samples(side_tid[0][0], spin_end, sleep_end)
        named = [s for s in side_rows if innermost(s[1]) == "side_spin"]
        check("side thread: side_spin", side_rows and len(named) >= 0.9 * len(side_rows),
              f"{set(s[1] for s in side_rows)}")
    # Distinct stacks are stored once.
    duplicates = db.execute("SELECT COUNT(*) - COUNT(DISTINCT frames) FROM host_stacks").fetchone()[0]
    check("stacks deduplicated", duplicates == 0)
    used = db.execute("SELECT COUNT(DISTINCT stack_id), COUNT(*) FROM host_samples").fetchone()
    check("few stacks for many samples", used[0] < used[1] / 4, f"{used}")

    # CPU time as the process and the thread measure it themselves (the machine may be shared:
    # compare with what they got, not with the wall time), within a sampling period or two.
    def near(sampled_ns, measured_s):
        return abs(sampled_ns / 1e9 - measured_s) <= 0.25 * measured_s + 0.03

    own = db.execute("SELECT SUM(cpu_ns) FROM process_cpu_samples WHERE pid = ? AND time_ns BETWEEN ? AND ?",
                     (pid, spin_start, sleep_end + 100_000_000)).fetchone()[0] or 0
    check("process CPU", near(own, process_cpu), f"sampled {own / 1e9:.3f} s, os.times {process_cpu:.3f} s")
    worker = db.execute("SELECT SUM(cpu_ns), MIN(parent_pid), MAX(parent_pid), COUNT(*) FROM process_cpu_samples"
                        " WHERE pid = ?", (child,)).fetchone()
    # The child records itself (as a forked DataLoader worker of a recorded job does) and leaves
    # through os._exit: its parent samples its CPU all the same, to its end.
    check("child CPU", worker[0] and worker[0] > 20_000_000 and worker[1] == worker[2] == pid, f"{worker}")
    sampled = db.execute("SELECT SUM(cpu_ns) FROM host_samples WHERE tid = ? AND time_ns > ? AND time_ns <= ?",
                         (pid, spin_start, spin_end + 5_000_000)).fetchone()[0] or 0
    check("main thread CPU while spinning", near(sampled, thread_cpu),
          f"sampled {sampled / 1e9:.3f} s, thread_time {thread_cpu:.3f} s")
    if python_ok:
        marker = "<gc> gc.collect (garbage collection running)"  # STORE_HOST_GC_FRAME
        rows = samples(pid, gc_start, gc_end)
        marked = [s for s in rows if s[1] and s[1].split("\n")[0] == marker]
        share = collecting / ((gc_end - gc_start) / 1e9)
        check("gc: samples while collecting are marked", rows and abs(len(marked) / len(rows) - share) <= 0.2,
              f"{len(marked)} of {len(rows)} marked, collections took {share:.0%} of the time")
        # above gc_here's frame (gc.collect(), or an allocation there), Node.__init__'s (an allocation)
        # or the timing callback's (the callbacks run while the collection is marked)
        check("gc: the marker sits above the frame that collected",
              marked and all(s[1].split("\n")[1].split(" ")[-1] in ("gc_here", "__init__", "<lambda>") and "gc_here" in s[1]
                             for s in marked), f"{[s for s in marked if 'gc_here' not in s[1].split(chr(10))[1]][:2]}")
        unmarked = [s for s in rows if s not in marked]
        check("gc: allocating is not collecting", all(s[1] is None or "gc.collect" not in s[1] for s in unmarked))
    if not python_ok:
        check("no Python stacks outside 3.10-3.13",
              db.execute("SELECT COUNT(*) FROM host_samples WHERE stack_id IS NOT NULL").fetchone()[0] == 0)
    db.close()
    shutil.rmtree(folder)


main()
for failure in failures:
    print("FAIL", failure)
print(f"python {sys.version.split()[0]}: {checks - len(failures)} of {checks} host sampler checks passed")
sys.exit(1 if failures else 0)
