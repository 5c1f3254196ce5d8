#!/usr/bin/env bash
# Regenerates the binary seeds of tests/fuzz-corpus (the JSON seeds are written by hand):
#   fuzz_store/: real traces imported from tests/data/kineto, repacked with 512-byte pages so the
#                fuzzer's mutations land on every kind of page;
#                with_overview.db is event_sync_multi_stream.db with a 2048-column overview
#                (render/overview.h) built by overview_build(trace, 0, 2048, &err) and repacked the
#                same way: the seed that takes `render --width 320` through overview_fill;
#   fuzz_nsys/:  a miniature Nsight Systems export with the export's table and column names.
# usage: fuzz/make_seeds.sh BUILD_DIR   (a build with the overlapscope binary)
set -euo pipefail
cd "$(dirname "$0")/.."
os=$1/cli/overlapscope
corpus=tests/fuzz-corpus
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for trace in event_sync_multi_stream; do
    "$os" import "tests/data/kineto/$trace.json.gz" -o "$tmp/$trace.db" >/dev/null
    python3 - "$tmp/$trace.db" "$corpus/fuzz_store/$trace.db" <<'PY'
import sqlite3, sys, shutil
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA page_size=512"); c.execute("VACUUM"); c.close()
shutil.copy(sys.argv[1], sys.argv[2])
PY
done
python3 - "$corpus/fuzz_nsys/report.sqlite" <<'PY'
import sqlite3, sys, os
if os.path.exists(sys.argv[1]): os.unlink(sys.argv[1])
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA page_size=512")
c.executescript("""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, uuid TEXT, l2CacheSize INTEGER,
 totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, maxRegistersPerBlock INTEGER,
 maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER,
 threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER,
 maxThreadsPerBlock INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER NOT NULL, pid INTEGER NOT NULL, uuid TEXT,
 numMultiprocessors INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
 demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, registersPerThread INTEGER, gridX INTEGER,
 gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER,
 dynamicSharedMemory INTEGER, launchType INTEGER, graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
 bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
 contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
 value INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
 deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
 globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
 globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, category INTEGER,
 color INTEGER, text TEXT, globalTid INTEGER, textId INTEGER, domainId INTEGER);
INSERT INTO StringIds VALUES (1, 'gemm_kernel(float*)'), (2, 'gemm_kernel'),
 (3, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (4, 'cudaLaunchKernel_v7000'), (5, 'forward');
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '');
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100 80GB HBM3', 'GPU-1', 52428800, 85520809984, 3352320000000,
 1980000000, 132, 65536, 49152, 232448, 233472, 65536, 32, 3, 64, 32, 1024, 9, 0);
INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (0, 0, 100, 'GPU-1', 132);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1500, 1, 1677721700, 11, 4, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000, 7000, 0, 1, 7, 11, 1677721600, 1, 2, 128, 264, 1, 1, 256, 1, 1,
 1024, 49152, 0, NULL), (3000, 9000, 0, 1, 13, 12, 1677721600, 3, 3, 96, 16, 1, 1, 640, 1, 1, 0, 41744, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (100, 900, 0, 1, 14, 10, 1677721600, 67108864, 1, 1, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (50, 60, 0, 1, 7, 9, 1677721600, 0, 4096, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1600, 1700, 0, 1, 13, 13, 1677721600, 2, 5),
 (9200, 9300, 0, 1, 4294967295, 14, 1677721600, 4, 4294967295);
INSERT INTO NVTX_EVENTS VALUES (0, 0, 75, NULL, NULL, 'training', 1677721700, NULL, 1),
 (500, 9500, 59, NULL, NULL, 'step', 1677721700, NULL, 1), (600, 800, 59, NULL, NULL, NULL, 1677721700, 5, 0),
 (700, NULL, 34, NULL, NULL, 'checkpoint', 1677721700, NULL, 0);
""")
c.commit(); c.close()
PY
echo "seeds written under $corpus"
