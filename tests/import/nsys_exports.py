#!/usr/bin/env python3
"""Hand-built Nsight Systems exports, one per table the importer reads and per schema difference
between nsys versions, each imported with `overlapscope import` and checked: the rows it stores and,
where the export makes a cause provable, the cause `overlapscope report --json` names.

The tables are the exports' own (nsys "SQLite Export Schema Reference"), with the columns of three
real versions (../shared/traces/nsys): 2022.2 (schema 2.9.1: TARGET_INFO_CUDA_NULL_STREAM,
CUPTI_ACTIVITY_KIND_CUDA_EVENT, RUNTIME.name, PROFILER_OVERHEAD.returnValue), 2024.5 (3.13.2:
TARGET_INFO_CUDA_CONTEXT_INFO.nullStreamId, greenContextId, DIAGNOSTIC_EVENT, META_DATA_CAPTURE,
syncType 1 for cudaDeviceSynchronize) and 2025.5 (3.24.0: KERNEL.graphId and cluster*, MEMCPY.copyCount,
SYNCHRONIZATION.deprecatedSyncType and eventSyncId, OSRT_API.argumentsId,
PROFILER_OVERHEAD.overheadType). The scenarios mirror tests/analyzer/test_analyzer_causes.c (times in
microseconds from the same origin), so the expected figures are the analyzer's own: legacy default
stream 39 us lost, event dependency 48 us, stream priority 100 us.

Usage: nsys_exports.py WORK_DIR  (OVERLAPSCOPE names the binary). Exit 1 on the first failed check."""
import json
import os
import sqlite3
import subprocess
import sys

OVERLAPSCOPE = os.environ.get("OVERLAPSCOPE", "overlapscope")
SESSION_START_NS = 1_700_000_000_000_000_000
BASE_NS = 1_000_000  # session-relative time of the scenarios' origin
PID, MAIN_TID = 4242, 4242
GLOBAL_PID = PID << 24
GLOBAL_TID = GLOBAL_PID | MAIN_TID
NO_ID = 4294967295

KERNEL = {
    "2022.2": "start,end,deviceId,contextId,streamId,correlationId,globalPid,demangledName,shortName,mangledName,"
    "launchType,cacheConfig,registersPerThread,gridX,gridY,gridZ,blockX,blockY,blockZ,staticSharedMemory,"
    "dynamicSharedMemory,localMemoryPerThread,localMemoryTotal,gridId,sharedMemoryExecuted,graphNodeId,"
    "sharedMemoryLimitConfig",
    "2024.5": "start,end,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,demangledName,"
    "shortName,mangledName,launchType,cacheConfig,registersPerThread,gridX,gridY,gridZ,blockX,blockY,blockZ,"
    "staticSharedMemory,dynamicSharedMemory,localMemoryPerThread,localMemoryTotal,gridId,sharedMemoryExecuted,"
    "graphNodeId,sharedMemoryLimitConfig",
}
KERNEL["2025.5"] = KERNEL["2024.5"] + ",qmdBulkReleaseDone,qmdPreexitDone,qmdLastCtaDone,graphId,clusterX,clusterY," \
    "clusterZ,clusterSchedulingPolicy,maxPotentialClusterSize,maxActiveClusters"
MEMCPY = {
    "2022.2": "start,end,deviceId,contextId,streamId,correlationId,globalPid,bytes,copyKind,deprecatedSrcId,"
    "srcKind,dstKind,srcDeviceId,srcContextId,dstDeviceId,dstContextId,migrationCause,graphNodeId,name",
    "2024.5": "start,end,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,bytes,copyKind,"
    "deprecatedSrcId,srcKind,dstKind,srcDeviceId,srcContextId,dstDeviceId,dstContextId,migrationCause,graphNodeId,"
    "virtualAddress",
}
MEMCPY["2025.5"] = MEMCPY["2024.5"] + ",copyCount"
SYNC = {
    "2022.2": "start,end,deviceId,contextId,streamId,correlationId,globalPid,syncType,eventId",
    "2024.5": "start,end,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,syncType,eventId",
    "2025.5": "start,end,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,deprecatedSyncType,"
    "syncType,eventId,eventSyncId",
}
RUNTIME = {"2022.2": "start,end,eventClass,globalTid,correlationId,nameId,returnValue,callchainId,name"}
RUNTIME["2024.5"] = RUNTIME["2025.5"] = "start,end,eventClass,globalTid,correlationId,nameId,returnValue,callchainId"
OSRT = {"2022.2": "start,end,eventClass,globalTid,nameId,returnValue,nestingLevel,callchainId"}
OSRT["2024.5"] = OSRT["2022.2"]
OSRT["2025.5"] = OSRT["2022.2"] + ",argumentsId"
OVERHEAD = {"2022.2": "start,end,globalTid,nameId,returnValue", "2024.5": "start,end,globalTid,nameId,returnValue",
            "2025.5": "start,end,globalTid,nameId,overheadType"}
GPU = "vmId,id,name,uuid,l2CacheSize,totalMemory,memoryBandwidth,clockRate,smCount,maxRegistersPerBlock," \
    "maxShmemPerBlock,maxShmemPerBlockOptin,maxShmemPerSm,maxRegistersPerSm,threadsPerWarp,asyncEngines," \
    "maxWarpsPerSm,maxBlocksPerSm,maxThreadsPerBlock,computeMajor,computeMinor"
H100 = (0, 0, "NVIDIA H100 80GB HBM3", "GPU-1", 52428800, 85520809984, 3352320000000, 1980000000, 132, 65536,
        49152, 232448, 233472, 65536, 32, 3, 64, 32, 1024, 9, 0)
NVTX = "start,end,eventType,rangeId,category,color,text,globalTid,endGlobalTid,textId,domainId,uint64Value," \
    "int64Value,doubleValue,uint32Value,int32Value,floatValue,jsonTextId,jsonText"


def us(t):
    return BASE_NS + int(round(t * 1000))


class Export:
    """One export being written: the tables of a version, strings interned as nsys does."""

    def __init__(self, path, version):
        if os.path.exists(path):
            os.unlink(path)
        self.db = sqlite3.connect(path)
        self.path, self.version = path, version
        self.strings = {}
        self.correlation = 100
        self.table("StringIds", "id,value")
        self.table("TARGET_INFO_SESSION_START_TIME", "utcEpochNs,utcTime,localTime")
        self.insert("TARGET_INFO_SESSION_START_TIME", utcEpochNs=SESSION_START_NS)
        self.table("TARGET_INFO_GPU", GPU)
        self.db.execute(f"INSERT INTO TARGET_INFO_GPU ({GPU}) VALUES ({','.join('?' * len(H100))})", H100)
        self.table("CUPTI_ACTIVITY_KIND_KERNEL", KERNEL[version])
        self.table("CUPTI_ACTIVITY_KIND_RUNTIME", RUNTIME[version])

    def table(self, name, columns):
        self.db.execute(f"CREATE TABLE IF NOT EXISTS {name} ({columns})")

    def insert(self, table, **values):
        names = ",".join(values)
        self.db.execute(f"INSERT INTO {table} ({names}) VALUES ({','.join('?' * len(values))})",
                        tuple(values.values()))

    def string(self, value):
        if value not in self.strings:
            self.strings[value] = len(self.strings) + 1
            self.insert("StringIds", id=self.strings[value], value=value)
        return self.strings[value]

    def call(self, name, start, end, tid=MAIN_TID):
        self.correlation += 1
        row = dict(start=us(start), end=us(end), eventClass=1, globalTid=GLOBAL_PID | tid,
                   correlationId=self.correlation, nameId=self.string(name), returnValue=0)
        if self.version == "2022.2":
            row["name"] = None
        self.insert("CUPTI_ACTIVITY_KIND_RUNTIME", **row)
        return self.correlation

    def kernel(self, stream, launch, start, end, grid=4, block=256, name="kernel", launch_name="cudaLaunchKernel_v7000"):
        correlation = self.call(launch_name, *launch) if launch else None
        row = dict(start=us(start), end=us(end), deviceId=0, contextId=1, streamId=stream,
                   correlationId=correlation, globalPid=GLOBAL_PID, demangledName=self.string(name + "(float*)"),
                   shortName=self.string(name), registersPerThread=32, gridX=grid, gridY=1, gridZ=1, blockX=block,
                   blockY=1, blockZ=1, staticSharedMemory=0, dynamicSharedMemory=0, localMemoryPerThread=0,
                   localMemoryTotal=0, gridId=correlation or 0, launchType=0)
        if self.version == "2025.5":
            row.update(clusterX=0, clusterY=0, clusterZ=0)
        self.insert("CUPTI_ACTIVITY_KIND_KERNEL", **row)
        return correlation

    def streams(self, rows):
        """rows: (streamId, priority as CUPTI's int32, flag); nsys writes the priority unsigned."""
        self.table("TARGET_INFO_CUDA_STREAM", "streamId,hwId,vmId,processId,contextId,priority,flag")
        for stream, priority, flag in rows:
            self.insert("TARGET_INFO_CUDA_STREAM", streamId=stream, hwId=0, vmId=1, processId=PID, contextId=1,
                        priority=priority & 0xFFFFFFFF, flag=flag)

    def null_stream(self, stream):
        """2022.2 names the NULL stream in a table of its own; 2024.5 on in the context's row."""
        if self.version == "2022.2":
            self.table("TARGET_INFO_CUDA_NULL_STREAM", "streamId,hwId,vmId,processId,deviceId,contextId")
            self.insert("TARGET_INFO_CUDA_NULL_STREAM", streamId=stream, hwId=0, vmId=1, processId=PID, deviceId=0,
                        contextId=1)
        else:
            self.table("TARGET_INFO_CUDA_CONTEXT_INFO",
                       "nullStreamId,hwId,vmId,processId,deviceId,contextId,parentContextId,isGreenContext")
            self.insert("TARGET_INFO_CUDA_CONTEXT_INFO", nullStreamId=stream, hwId=0, vmId=1, processId=PID, deviceId=0,
                        contextId=1, parentContextId=None, isGreenContext=0)

    def sync(self, call_name, start, end, stream, sync_type, event=NO_ID):
        correlation = self.call(call_name, start, end)
        self.table("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", SYNC[self.version])
        row = dict(start=us(start), end=us(end), deviceId=0, contextId=1, streamId=stream, correlationId=correlation,
                   globalPid=GLOBAL_PID, syncType=sync_type, eventId=event)
        if self.version == "2025.5":
            row.update(deprecatedSyncType=None, eventSyncId=NO_ID)
        self.insert("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", **row)

    def event_record(self, stream, event, start, end):
        correlation = self.call("cudaEventRecord_v3020", start, end)
        self.table("CUPTI_ACTIVITY_KIND_CUDA_EVENT", "deviceId,contextId,streamId,correlationId,globalPid,eventId")
        self.insert("CUPTI_ACTIVITY_KIND_CUDA_EVENT", deviceId=0, contextId=1, streamId=stream,
                    correlationId=correlation, globalPid=GLOBAL_PID, eventId=event)

    def osrt(self, name, start, end, tid=MAIN_TID):
        self.table("OSRT_API", OSRT[self.version])
        row = dict(start=us(start), end=us(end), eventClass=27, globalTid=GLOBAL_PID | tid, nameId=self.string(name),
                   returnValue=0, nestingLevel=0, callchainId=0)
        if self.version == "2025.5":
            row["argumentsId"] = 0
        self.insert("OSRT_API", **row)

    def close(self):
        self.db.commit()
        self.db.close()
        return self.path


failures = []


def check(what, actual, expected):
    if actual != expected:
        failures.append(f"{what}: got {actual!r}, expected {expected!r}")


def run(*args):
    result = subprocess.run([OVERLAPSCOPE, *args], capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def imported(export, work):
    trace = os.path.join(work, os.path.basename(export).replace(".sqlite", ".db"))
    code, output = run("import", "--force", "-o", trace, export)
    check(f"import {os.path.basename(export)} exit status ({output.strip()})", code, 0)
    return trace


def query(trace, sql):
    return sqlite3.connect(trace).execute(sql).fetchall()


def report(trace):
    # The whole run: the computed answers count every row of these hand-built exports.
    code, output = run("report", "--all", "--json", trace)
    check(f"report {trace} exit status", code, 0)
    return json.loads(output) if code == 0 else {}


def causes_of(result):
    return sorted((w["cause"], round(w["lost_ns"] / 1000)) for w in result.get("waits", []))


def not_checkable(trace):
    return sorted(m for (m,) in query(trace, "SELECT message FROM warnings WHERE code = 'cause-not-checkable'"))


def legacy_default_stream(work, version):
    """test_legacy_default_stream: a blocking stream 13 and the NULL stream 7, as the export describes
    them (TARGET_INFO_CUDA_STREAM flags 1 and 3, the NULL stream named by the version's own table)."""
    e = Export(os.path.join(work, f"legacy-{version}.sqlite"), version)
    e.streams([(7, 0, 3), (13, 0, 1), (14, 0, 2)])
    e.null_stream(7)
    e.kernel(13, (-10, -9), 0, 100, name="on_blocking_stream")
    e.kernel(7, (-8, -7), 101, 140, name="on_null_stream")
    trace = imported(e.close(), work)
    check(f"{version} streams (id, legacy, priority, flags, label)",
          query(trace, "SELECT stream_id, is_legacy_default, priority, flags, label FROM streams ORDER BY stream_id"),
          [(7, 1, 0, 3, "default"), (13, 0, 0, 1, "compute"), (14, 0, 0, 2, None)])
    result = report(trace)
    check(f"{version} legacy default stream: causes", causes_of(result), [("legacy-default-stream", 39)])
    roles = {s["stream_id"]: (s["role"], s["legacy_default"]) for s in result.get("streams", [])}
    check(f"{version} report stream roles", roles, {7: ("default", True), 13: ("compute", False)})
    check(f"{version} not checkable", not_checkable(trace), ["shared-queue (no hardware channel ids in nsys exports)"])


def without_stream_table(work):
    """The same work without TARGET_INFO_CUDA_STREAM: nothing says which stream is the NULL stream."""
    e = Export(os.path.join(work, "legacy-unknown.sqlite"), "2025.5")
    e.kernel(13, (-10, -9), 0, 100, name="on_blocking_stream")
    e.kernel(7, (-8, -7), 101, 140, name="on_null_stream")
    export = e.close()
    trace = imported(export, work)
    check("no stream table: causes", causes_of(report(trace)), [("unexplained", 39)])
    code, output = run("import", "--force", "-o", trace, export)
    check("import names what cannot be checked", output.count("  warning: cause-not-checkable: "), 2)
    check("no stream table: not checkable", not_checkable(trace), [
        "legacy-default-stream, stream-priority (no stream creation records (TARGET_INFO_CUDA_STREAM): stream flags"
        " and priorities unknown)", "shared-queue (no hardware channel ids in nsys exports)"])


def stream_priority(work):
    """test_stream_priority: stream 1 created with priority -1, stream 2 with 0 (non-blocking)."""
    e = Export(os.path.join(work, "priority.sqlite"), "2024.5")
    e.streams([(1, -1, 2), (2, 0, 2)])
    e.kernel(2, (0, 1), 3205, 3305, name="low_priority")
    e.kernel(1, (2, 3), 5, 3205, grid=8448, block=1024, name="high_priority")
    trace = imported(e.close(), work)
    check("priority stored", query(trace, "SELECT stream_id, priority FROM streams ORDER BY stream_id"),
          [(1, -1), (2, 0)])
    check("stream priority: causes", causes_of(report(trace)), [("stream-priority", 100)])


def event_dependency(work, with_records):
    """test_event_dependency: stream 2 waits for event 5, recorded on stream 1 after the producer. 2022.2
    exports CUPTI_ACTIVITY_KIND_CUDA_EVENT; without it the wait cannot be tied to stream 1."""
    version = "2022.2" if with_records else "2024.5"
    e = Export(os.path.join(work, f"event-{version}.sqlite"), version)
    e.streams([(1, 0, 2), (2, 0, 2)])
    e.kernel(1, (-10, -9), 0, 100, name="producer")
    if with_records:
        e.event_record(1, 5, -8, -7.5)
    else:
        e.call("cudaEventRecord_v3020", -8, -7.5)
    e.sync("cudaStreamWaitEvent_v3020", -7, -6.5, 2, 2, 5)
    e.kernel(2, (-6, -5), 102, 150, name="consumer")
    trace = imported(e.close(), work)
    check(f"{version} cuda_events", query(trace, "SELECT stream_id, event_id FROM cuda_events"),
          [(1, 5)] if with_records else [])
    check(f"{version} stream wait", query(trace, "SELECT sync_type, stream_id, event_id FROM synchronizations"),
          [(2, 2, 5)])
    expected = [("event-dependency", 48)] if with_records else [("unexplained", 48)]
    check(f"{version} event dependency: causes", causes_of(report(trace)), expected)
    if not with_records:
        check("no event records: not checkable", (not_checkable(trace) or [None])[0],
              "event-dependency (no CUDA event records (CUPTI_ACTIVITY_KIND_CUDA_EVENT): no record says which"
              " stream recorded each event; enable nsys's CUDA event trace)")


def sync_types(work):
    """nsys 2024.5 exports cudaDeviceSynchronize's record as syncType 1 (event synchronize); 2025.5
    writes 4, CUPTI's value. The call that made the record decides; a NULL-stream id reads as none."""
    for version, exported in (("2024.5", 1), ("2025.5", 4)):
        e = Export(os.path.join(work, f"sync-{version}.sqlite"), version)
        e.kernel(7, (0, 1), 2, 10)
        e.sync("cudaDeviceSynchronize_v3020", 1, 10, NO_ID, exported)
        e.sync("cudaStreamSynchronize_v3020", 11, 12, 7, 3)
        trace = imported(e.close(), work)
        check(f"{version} sync types", query(trace, "SELECT sync_type, stream_id FROM synchronizations ORDER BY start_ns"),
              [(4, None), (3, 7)])


def target_description(work):
    """The traced machine: PROCESSES' name (the launched command with META_DATA_CAPTURE's arguments),
    TARGET_INFO_SYSTEM_ENV's Hostname (META_DATA_EXPORT's EXPORT_HOST is where `nsys export` ran), and
    meta host, which `info` prints: never the importing machine's."""
    e = Export(os.path.join(work, "target.sqlite"), "2025.5")
    e.kernel(7, (0, 1), 2, 10)
    e.table("PROCESSES", "globalPid,pid,name")
    e.insert("PROCESSES", globalPid=GLOBAL_PID, pid=PID, name="python")
    e.insert("PROCESSES", globalPid=7 << 24, pid=7, name="kworker")
    e.table("TARGET_INFO_SYSTEM_ENV", "globalVid,devStateName,name,nameEnum,value")
    e.insert("TARGET_INFO_SYSTEM_ENV", globalVid=1, devStateName="", name="Hostname", nameEnum=1, value="gpu-node-17")
    e.table("META_DATA_EXPORT", "name,value")
    e.insert("META_DATA_EXPORT", name="EXPORT_HOST", value="laptop")
    e.table("META_DATA_CAPTURE", "name,value")
    for name, value in (("PROCESS_0:COMMAND", "python"), ("PROCESS_0:ARGUMENT_0", "train.py"),
                        ("PROCESS_0:ARGUMENT_1", "--steps=6")):
        e.insert("META_DATA_CAPTURE", name=name, value=value)
    e.table("ThreadNames", "nameId,priority,globalTid")
    for tid, name in ((MAIN_TID, "python"), (MAIN_TID + 1, "pt_autograd_0"), (MAIN_TID + 2, "[NSys]")):
        e.insert("ThreadNames", nameId=e.string(name), priority=20, globalTid=GLOBAL_PID | tid)
    e.insert("ThreadNames", nameId=e.string("kworker/0"), priority=20, globalTid=(7 << 24) | 7)
    trace = imported(e.close(), work)
    check("process", query(trace, "SELECT pid, host, command_line FROM processes"),
          [(PID, "gpu-node-17", "python train.py --steps=6")])
    check("thread names", query(trace, "SELECT t.thread_id, s.value FROM threads t JOIN strings s ON s.id = t.name_id"
                                       " ORDER BY t.thread_id"),
          [(MAIN_TID, "python"), (MAIN_TID + 1, "pt_autograd_0"), (MAIN_TID + 2, "[NSys]")])
    check("meta host", query(trace, "SELECT value FROM meta WHERE key = 'host'"), [("gpu-node-17",)])
    code, output = run("info", trace)
    check("info prints the traced host", "host:      gpu-node-17" in output and "laptop" not in output, True)
    check("info names the CUDA threads", f"    CUDA threads: {MAIN_TID} python\n" in output, True)
    other = imported(Export(os.path.join(work, "other.sqlite"), "2025.5").close(), work)
    merged = os.path.join(work, "merged.db")
    code, output = run("merge", "--force", "-o", merged, trace, other)
    check(f"merge ({output.strip()})", code, 0)
    check("merge keeps thread names", query(merged, "SELECT COUNT(*) FROM threads"), [(3,)])


def os_runtime_waits(work):
    """A launching thread that sat in pthread_cond_wait (a data loader's queue) between two kernels:
    the GPU idle time is the host's, named by the wait. Calls that do not wait (mmap), shorter than
    10 us, or of another process are not kept; the CUDA host rules never read the waits."""
    e = Export(os.path.join(work, "osrt.sqlite"), "2025.5")
    e.kernel(7, (0, 1), 2, 100, name="first")
    e.osrt("pthread_cond_wait", 110, 900)
    e.osrt("mmap", 901, 960)
    e.osrt("poll", 961, 965)  # 4 us: too short to hold a GPU back
    e.osrt("pthread_cond_wait", 10, 900, tid=MAIN_TID + 1)  # another thread of the process: kept
    e.kernel(7, (970, 975), 980, 1000, name="second")
    trace = imported(e.close(), work)
    check("OS waits stored", query(trace, "SELECT thread_id, callback_id, correlation_id, s.value FROM api_calls a"
                                          " JOIN strings s ON s.id = a.name_id WHERE api_domain = 3 ORDER BY start_ns"),
          [(MAIN_TID + 1, None, None, "pthread_cond_wait"), (MAIN_TID, None, None, "pthread_cond_wait")])
    result = report(trace)
    idle = {(c["cause"], c.get("label")): c["ns"] for d in result.get("devices", []) for c in d["idle"]["causes"]}
    check("idle while the thread waited", idle.get(("host-cpu", "pthread_cond_wait (waiting for another thread)")),
          790_000)


def wait_inside_a_cuda_call(work):
    """test_host_sync_idle_stream with the driver's own poll inside cudaDeviceSynchronize, as nsys's OS
    runtime trace records it: the CUDA host rules read CUDA calls only, so the synchronization still
    held the thread (host-sync, 1001 us); read as the thread's latest call, the poll would hide it."""
    e = Export(os.path.join(work, "nested-wait.sqlite"), "2025.5")
    e.kernel(1, (-10, -5), 0, 1000, name="kernel_a")
    e.call("cudaDeviceSynchronize_v3020", 2, 1003)
    e.osrt("poll", 10, 1000)
    e.call("cudaGetLastError_v3020", 1003.5, 1004)
    e.kernel(2, (1005, 1010), 1015, 2515, name="kernel_b")
    trace = imported(e.close(), work)
    check("poll kept", query(trace, "SELECT COUNT(*) FROM api_calls WHERE api_domain = 3"), [(1,)])
    check("a wait inside a CUDA call: causes", causes_of(report(trace)), [("host-sync", 1001)])


def nccl_sizes(work):
    """NCCL 2.19+ ranges (domain NCCL) carry the message size; the kernel launched inside the range
    gets it (collectives.bytes, detail_source 3: NVTX payload). A kernel launched outside (a grouped
    call's, at ncclGroupEnd) keeps none."""
    e = Export(os.path.join(work, "nccl.sqlite"), "2022.2")
    e.table("NVTX_EVENTS", NVTX)
    e.insert("NVTX_EVENTS", start=us(0), end=None, eventType=75, text="NCCL", globalTid=GLOBAL_TID, domainId=3)
    e.insert("NVTX_EVENTS", start=us(1), end=us(20), eventType=59, text="ncclAllReduce", globalTid=GLOBAL_TID,
             domainId=3, jsonText='{"Message size [bytes]":4194304,"Reduction operation":"Sum"}')
    name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
    e.kernel(13, (5, 6), 30, 80, name=name)
    e.kernel(13, (90, 91), 100, 150, name=name)
    trace = imported(e.close(), work)
    check("NCCL sizes", query(trace, "SELECT op, bytes, detail_source FROM collectives ORDER BY start_ns"),
          [("AllReduce", 4194304, 3), ("AllReduce", None, 1)])
    check("NVTX domain", query(trace, "SELECT s.value FROM nvtx n JOIN strings s ON s.id = n.domain_id"), [("NCCL",)])


def profiler_notes(work):
    """PROFILER_OVERHEAD (returnValue in 2024.5, overheadType in 2025.5) and nsys's CUDA diagnostics."""
    for version in ("2024.5", "2025.5"):
        e = Export(os.path.join(work, f"notes-{version}.sqlite"), version)
        e.kernel(7, (0, 1), 2, 10)
        e.table("PROFILER_OVERHEAD", OVERHEAD[version])
        extra = {"returnValue": 0} if version == "2024.5" else {"overheadType": 1}
        e.insert("PROFILER_OVERHEAD", start=us(0), end=us(300), globalTid=GLOBAL_TID,
                 nameId=e.string("CUPTI Buffer flush"), **extra)
        e.insert("PROFILER_OVERHEAD", start=us(400), end=us(500), globalTid=GLOBAL_TID, nameId=e.string("TLS allocation"),
                 **extra)
        e.table("DIAGNOSTIC_EVENT", "timestamp,timestampType,source,severity,text,globalPid")
        for severity, text in ((2, "CUDA profiling might have not been started correctly."),
                               (2, "CUDA profiling might have not been started correctly."),
                               (2, "No OpenGL events collected. Does the process use OpenGL?"),
                               (1, "Number of CUDA events collected: 4."), (3, "CUPTI failed\nto flush")):
            e.insert("DIAGNOSTIC_EVENT", timestamp=0, timestampType=0, source=3, severity=severity, text=text,
                     globalPid=GLOBAL_PID)
        trace = imported(e.close(), work)
        check(f"{version} notes", query(trace, "SELECT code, message FROM warnings WHERE code IN"
                                               " ('profiler-overhead', 'nsys-diagnostic') ORDER BY rowid"), [
            ("nsys-diagnostic", "nsys warning: CUDA profiling might have not been started correctly. (2 times)"),
            ("nsys-diagnostic", "nsys error: CUPTI failed to flush"),
            ("profiler-overhead", "nsys's own work (PROFILER_OVERHEAD) held threads of this process for 400 us in 2"
             " records, the longest 300 us (CUPTI Buffer flush): GPU idle time beside it is the profiler's, not the"
             " program's")])


def no_gpu_activity(work):
    """An export with CUDA calls and no kernel, copy or memset (nsys's CUDA trace never started):
    imported, and said so."""
    e = Export(os.path.join(work, "no-gpu.sqlite"), "2025.5")
    e.call("cudaGetDeviceCount", 0, 1)
    e.call("cudaFree", 2, 3)
    export = e.close()
    trace = imported(export, work)
    check("no GPU activity", query(trace, "SELECT code FROM warnings"), [("import-no-gpu-activity",)])
    code, output = run("import", "--force", "-o", trace, export)
    check("import says so", f"  warning: import-no-gpu-activity: {export}: no GPU activity" in output, True)
    messages = [m for (m,) in query(trace, "SELECT message FROM warnings")]
    check("no GPU activity message", any("no GPU activity (kernels, copies, memsets) in this export, 2 CUDA API"
                                         " calls only" in m for m in messages), True)


def graph_ids(work):
    """KERNEL.graphId (2025.5) and graphNodeId; MEMCPY.copyCount (2025.5)."""
    e = Export(os.path.join(work, "graph.sqlite"), "2025.5")
    e.kernel(7, (0, 1), 2, 10)
    e.db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET graphId = 3, graphNodeId = 17")
    e.table("CUPTI_ACTIVITY_KIND_MEMCPY", MEMCPY["2025.5"])
    e.insert("CUPTI_ACTIVITY_KIND_MEMCPY", start=us(20), end=us(30), deviceId=0, contextId=1, streamId=7,
             correlationId=None, globalPid=GLOBAL_PID, bytes=4096, copyKind=1, srcKind=2, dstKind=3, copyCount=4)
    trace = imported(e.close(), work)
    check("graph ids", query(trace, "SELECT graph_id, graph_node_id FROM kernels"), [(3, 17)])
    check("copy count", query(trace, "SELECT copy_count, bytes FROM memcpys"), [(4, 4096)])


def exposed_copies(work):
    """Exposed copies from an export (issue 36 item 4): on stream 7, a 6.4 MB HtoD copy from pageable
    memory (srcKind 1) with no kernel running, 0-100 us, then a kernel; a pinned one (srcKind 2) of
    the same size, 300-340 us, then a kernel. The SMs waited 140 us: 100 us for pageable host
    memory, 40 us for a copy on the compute stream; pinning is offered."""
    e = Export(os.path.join(work, "copies.sqlite"), "2024.5")
    e.table("CUPTI_ACTIVITY_KIND_MEMCPY", MEMCPY["2024.5"])
    for start, end, source in ((0, 100, 1), (300, 340, 2)):
        e.insert("CUPTI_ACTIVITY_KIND_MEMCPY", start=us(start), end=us(end), deviceId=0, contextId=1, streamId=7,
                 correlationId=None, globalPid=GLOBAL_PID, bytes=6_400_000, copyKind=1, srcKind=source,
                 dstKind=3)
    e.kernel(7, (105, 106), 110, 200, name="after_pageable")
    e.kernel(7, (341, 342), 350, 400, name="after_pinned")
    result = report(imported(e.close(), work))
    device = (result.get("devices") or [{}])[0]
    parts = sorted((c["cause"], c["label"], round(c["ns"] / 1000)) for c in device.get("exposed_copy", {}).get("causes", []))
    check("nsys exposed copies", parts, [("pageable", "HtoD", 100), ("same-stream", "HtoD on stream 7", 40)])
    check("nsys exposed copy total (us)", round(device.get("exposed_copy_ns", 0) / 1000), 140)
    check("nsys pin-host-buffer offered", any(w["fix"] == "pin-host-buffer" for w in result.get("what_if", [])), True)


def refused(export, work):
    """import's exit status and its one line, with the export's path cut."""
    code, output = run("import", "--force", "-o", os.path.join(work, "refused.db"), export)
    return code, output.strip().replace(export, "EXPORT")


def hostile_values(work):
    """Values nsys never writes. A number column holding text, a real or a blob: a required one
    (start, end, deviceId, streamId) refuses the export in one line; an optional one reads as unknown,
    counted in one import-skipped warning (it read as 0, or as the text's leading digits). The kernel
    name falls back to shortName when demangledName is NULL. An NCCL range without start holds no
    launch (it took every launch of its thread before its end). Times whose differences overflow
    int64 (UB in the busy-time sums and the OS-wait filter) reach the store's bounds and are refused
    there; overlapping kernels of 13 days each still label their stream compute. nsys's own time
    (PROFILER_OVERHEAD) counts the stretches of integer times only (a text end read as 0 printed a
    negative time)."""
    e = Export(os.path.join(work, "hostile-device.sqlite"), "2025.5")
    e.kernel(7, (0, 1), 2, 10)
    e.db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 'zero'")
    check("text deviceId", refused(e.close(), work), (2, "overlapscope: import: EXPORT: CUPTI_ACTIVITY_KIND_KERNEL: a row"
                                                        " whose deviceId is text, not an integer"))
    e = Export(os.path.join(work, "hostile-optional.sqlite"), "2025.5")
    e.kernel(7, (0, 1), 2, 10)
    e.db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = '12 blocks', registersPerThread = 1.5,"
                 " demangledName = NULL")
    e.table("PROFILER_OVERHEAD", OVERHEAD["2025.5"])
    e.insert("PROFILER_OVERHEAD", start=us(0), end=us(300), globalTid=GLOBAL_TID, nameId=e.string("CUPTI Buffer flush"))
    e.insert("PROFILER_OVERHEAD", start=us(400), end="later", globalTid=GLOBAL_TID, nameId=e.string("TLS allocation"))
    trace = imported(e.close(), work)
    check("overhead of integer times only", query(trace, "SELECT message FROM warnings WHERE code = 'profiler-overhead'"),
          [("nsys's own work (PROFILER_OVERHEAD) held threads of this process for 300 us in 1 record, the longest 300"
            " us (CUPTI Buffer flush): GPU idle time beside it is the profiler's, not the program's",)])
    check("odd optional values", query(trace, "SELECT grid_x, registers_per_thread, s.value FROM kernels k"
                                              " JOIN strings s ON s.id = k.name_id"), [(None, None, "kernel")])
    check("odd values warned", query(trace, "SELECT message FROM warnings WHERE code = 'import-skipped'"),
          [(f"{e.path}: 2 optional values of an unexpected type, left unknown (the first:"
            " CUPTI_ACTIVITY_KIND_KERNEL.gridX, text)",)])
    e = Export(os.path.join(work, "hostile-clock.sqlite"), "2025.5")
    e.kernel(7, (0, 1), 2, 10)
    e.db.execute("UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = 4611686018427387904")
    check("clock beyond bounds", refused(e.close(), work),
          (2, "overlapscope: import: EXPORT: TARGET_INFO_SESSION_START_TIME: utcEpochNs 4611686018427387904 is"
              " beyond any clock (+-2^61 ns)"))
    e = Export(os.path.join(work, "hostile-nccl.sqlite"), "2022.2")
    e.table("NVTX_EVENTS", NVTX)
    e.insert("NVTX_EVENTS", start=us(0), end=None, eventType=75, text="NCCL", globalTid=GLOBAL_TID, domainId=3)
    e.insert("NVTX_EVENTS", start=None, end=None, eventType=59, globalTid=GLOBAL_TID, domainId=3,
             jsonText='{"Message size [bytes]":4194304}')
    e.kernel(13, (5, 6), 30, 80, name="ncclDevKernel_AllReduce_Sum_f32_RING_LL")
    e.db.execute("ALTER TABLE NVTX_EVENTS DROP COLUMN jsonTextId")
    trace = imported(e.close(), work)
    check("NCCL range without start", query(trace, "SELECT bytes, detail_source FROM collectives"), [(None, 1)])
    # A size beyond any message (1 PiB, what one copy may move): strtoll made the first INT64_MAX, and
    # two of them overflowed info's per-op sum (info then printed no collective line).
    e = Export(os.path.join(work, "hostile-nccl-size.sqlite"), "2022.2")
    e.table("NVTX_EVENTS", NVTX)
    e.insert("NVTX_EVENTS", start=us(0), end=None, eventType=75, text="NCCL", globalTid=GLOBAL_TID, domainId=3)
    for i, size in enumerate(("99999999999999999999", str(1 << 62), str(1 << 50))):
        e.insert("NVTX_EVENTS", start=us(100 * i + 1), end=us(100 * i + 20), eventType=59, text="ncclAllReduce",
                 globalTid=GLOBAL_TID, domainId=3, jsonText='{"Message size [bytes]":' + size + '}')
        e.kernel(13, (100 * i + 5, 100 * i + 6), 100 * i + 30, 100 * i + 80, name="ncclDevKernel_AllReduce_Sum_f32_RING_LL")
    trace = imported(e.close(), work)
    check("NCCL size beyond any message", query(trace, "SELECT bytes FROM collectives ORDER BY start_ns"),
          [(None,), (None,), (1 << 50,)])
    for table, shift, message in (("CUPTI_ACTIVITY_KIND_KERNEL", "start", "kernels row 1"),
                                  ("OSRT_API", "start", "api_calls row 2")):
        e = Export(os.path.join(work, f"hostile-{table}.sqlite"), "2025.5")
        e.kernel(7, (0, 1), 2, 10)
        e.osrt("poll", 20, 100)
        e.db.execute(f"UPDATE {table} SET {shift} = -9223372036854775807")
        code, line = refused(e.close(), work)
        check(f"{table} overflowing times", (code, f"no reader would accept it: {message} runs from" in line), (2, True))
    e = Export(os.path.join(work, "hostile-overlap.sqlite"), "2025.5")
    day13 = (1 << 50) // 1000  # us
    for i in range(1000):
        e.kernel(7, None, 0, day13)
    trace = imported(e.close(), work)
    check("overlapping 13-day kernels", query(trace, "SELECT label FROM streams"), [("compute",)])


def nsys_report_refused(work):
    report_path = os.path.join(work, "run.nsys-rep")
    with open(report_path, "wb") as f:
        f.write(b"not sqlite")
    code, output = run("import", "-o", os.path.join(work, "run.db"), report_path)
    check("nsys-rep refused", (code, output.strip()), (2, f"overlapscope: import: {report_path}: an Nsight Systems"
          f" report; import its SQLite export, made with: nsys export --type sqlite --output {work}/run.sqlite"
          f" {report_path}"))


def main():
    work = sys.argv[1]
    for version in ("2022.2", "2024.5", "2025.5"):
        legacy_default_stream(work, version)
    without_stream_table(work)
    stream_priority(work)
    event_dependency(work, True)
    event_dependency(work, False)
    sync_types(work)
    target_description(work)
    os_runtime_waits(work)
    wait_inside_a_cuda_call(work)
    nccl_sizes(work)
    profiler_notes(work)
    no_gpu_activity(work)
    graph_ids(work)
    exposed_copies(work)
    hostile_values(work)
    nsys_report_refused(work)
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
