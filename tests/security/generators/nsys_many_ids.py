#!/usr/bin/env python3
"""Writes an Nsight Systems export of N one-microsecond kernels: usage: nsys_many_ids.py OUT.sqlite N
processes|channels. `processes`: kernel i in a process of its own (globalPid); `channels`: one
process, one device, kernel i on stream i and hardware channel i. Per-row lookups of a process or a
channel scanned every one seen before: quadratic in N."""
import sqlite3
import sys

path, count, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
db = sqlite3.connect(path)
db.executescript(
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,"
    " globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, registersPerThread INTEGER,"
    " gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER,"
    " staticSharedMemory INTEGER, dynamicSharedMemory INTEGER, channelId INTEGER, channelType INTEGER);"
    "INSERT INTO StringIds VALUES (1, 'k');")
rows = []
for i in range(count):
    pid, stream, channel = ((i + 1) << 24, 7, 1) if mode == "processes" else (1 << 24, 1000 + i, i)
    rows.append((1000 * (i + 1), 1000 * (i + 1) + 500, 0, 1, stream, i + 1, pid, 1, 1, 32, 1, 1, 1, 128, 1, 1, 0, 0,
                 channel, 1))
db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%s)" % ",".join("?" * 20), rows)
db.commit()
