#!/usr/bin/env python3
"""Hostile copies of SQLite files, shared by the hostile-trace tests and the fuzz seeds (one home).

usage: hostile_mutate.py TARGET SOURCE [SQL...]: copies SOURCE to TARGET, drops the NOT NULL
constraints of its tables (a hostile file need not keep ours; the column shapes stay the schema's)
and runs each statement on the copy."""
import shutil
import sqlite3
import sys


def drop_not_null(path, table=None):
    """Edits the stored CREATE TABLE of table (every table when None) through writable_schema."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA writable_schema = ON")
    if table:
        db.execute("UPDATE sqlite_schema SET sql = replace(sql, 'NOT NULL', '') WHERE name = ?", (table,))
    else:
        db.execute("UPDATE sqlite_schema SET sql = replace(sql, 'NOT NULL', '') WHERE type = 'table'")
    db.execute("PRAGMA writable_schema = OFF")
    db.close()


def mutate(source, target, *statements):
    shutil.copy(source, target)
    drop_not_null(target)
    db = sqlite3.connect(target, isolation_level=None)  # reopened: the edited schema is read afresh
    for statement in statements:
        db.execute(statement)
    db.close()


if __name__ == "__main__":
    mutate(sys.argv[2], sys.argv[1], *sys.argv[3:])
