#!/usr/bin/env python3
"""Writes an Nsight Systems export whose NVTX ranges all sit in named domains (domainId != 0):
usage: nsys_nvtx_domains.py OUT.sqlite ROWS. Each domain's name is its NvtxDomainCreate row (eventType
75); ranges are push/pop (59) on one thread. Issue 20 item 17: looking the domain up per row was
quadratic in ROWS."""
import sqlite3
import sys

path, rows = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(path)
db.executescript(
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
    " rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,"
    " textId INTEGER, domainId INTEGER);")
tid = 100 << 24 | 7
domains = 16
db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES (?, ?, 59, ?, ?, ?)",
               [(1000 + 10 * i, 1005 + 10 * i, "range %d" % i, tid, 1 + i % domains) for i in range(rows)])
# The domain registrations come last, as in the exports where a lookup had to scan every range first.
db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES (0, 0, 75, ?, ?, ?)",
               [("domain %d" % d, tid, d) for d in range(1, domains + 1)])
db.commit()
