#!/usr/bin/env bash
# Regenerates the binary seeds of tests/fuzz-corpus (the JSON seeds are written by hand):
#   fuzz_store/: real traces imported from tests/data/kineto, repacked with 512-byte pages so the
#                fuzzer's mutations land on every kind of page;
#                with_overview.db is event_sync_multi_stream.db with a 2048-column overview
#                (render/overview.h) built by overview_build(trace, 0, 2048, &err) and repacked the
#                same way: the seed that takes `render --width 320` through overview_fill;
#   fuzz_nsys/:  a miniature Nsight Systems export with the export's table and column names, and
#                the hand-built exports of tests/import/nsys_exports.py (one per schema version);
#   hostile-*:   those seeds with issue 20's hostile mutations (views, triggers, extreme values);
#   fuzz_merge/: fuzz_store's real trace and its hostile values, each merged as two ranks.
# fuzz_cache_identity/ holds identities a cache keeps (two per seed, split at a NUL), by hand.
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
# Hostile seeds (issue 20, Must 5): the mutations of tests/store/hostile_traces.py, on the small
# seeds above, so that the fuzzers start from values and shapes the readers must refuse.
python3 - "$corpus" <<'PY'
import sys
sys.path.insert(0, "tests/store")
from hostile_mutate import mutate
corpus = sys.argv[1]
store = corpus + "/fuzz_store/event_sync_multi_stream.db"
recursive = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)"
mutate(store, corpus + "/fuzz_store/hostile-recursive-view.db", "ALTER TABLE memsets RENAME TO m0",
       "CREATE VIEW memsets AS " + recursive + " SELECT m0.* FROM r, m0")
mutate(store, corpus + "/fuzz_store/hostile-trigger.db", "CREATE TRIGGER t AFTER INSERT ON kernels BEGIN SELECT 1; END")
mutate(store, corpus + "/fuzz_store/hostile-device-limits.db",
       "UPDATE devices SET warp_size = 9223372036854775807, sm_count = -1, max_registers_per_sm = 1.5e300")
mutate(store, corpus + "/fuzz_store/hostile-values.db",
       "UPDATE kernels SET grid_x = 9223372036854775807, registers_per_thread = -9223372036854775808",
       "UPDATE api_calls SET end_ns = -9223372036854775808",
       "UPDATE nvtx SET end_ns = 9223372036854775807", "UPDATE strings SET value = NULL WHERE id = 1",
       "UPDATE processes SET process_id = 9223372036854775807 WHERE rowid = 1",
       "UPDATE streams SET label = CAST(x'ff1b5b33316d00fe' AS TEXT)")
mutate(store, corpus + "/fuzz_store/hostile-version.db",
       "UPDATE meta SET value = '4294967297' WHERE key = 'schema_version'", "PRAGMA user_version = 7")
nsys = corpus + "/fuzz_nsys/report.sqlite"
mutate(nsys, corpus + "/fuzz_nsys/hostile-kernel-view.sqlite", "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k0",
       "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS " + recursive + " SELECT k0.* FROM r, k0")
mutate(nsys, corpus + "/fuzz_nsys/hostile-values.sqlite",
       "UPDATE TARGET_INFO_GPU SET threadsPerWarp = 9223372036854775807, smCount = -1",
       "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = -9223372036854775808",
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 1.5e300, blockX = 'text'")
PY
# The hand-built exports of tests/import/nsys_exports.py, one per nsys schema version and table the
# importer reads (streams, events, OS runtime waits, NCCL sizes, notes, the target's description).
OVERLAPSCOPE=$os python3 tests/import/nsys_exports.py "$tmp" >/dev/null
for export in legacy-2022.2 legacy-2024.5 event-2022.2 priority osrt nccl notes-2025.5 target no-gpu; do
    python3 - "$tmp/$export.sqlite" "$corpus/fuzz_nsys/$export.sqlite" <<'PY'
import sqlite3, sys, shutil
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA page_size=512"); c.execute("VACUUM"); c.close()
shutil.copy(sys.argv[1], sys.argv[2])
PY
done
cp "$corpus/fuzz_store/event_sync_multi_stream.db" "$corpus/fuzz_store/hostile-values.db" "$corpus/fuzz_merge/"
echo "seeds written under $corpus"
