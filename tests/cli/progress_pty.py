#!/usr/bin/env python3
"""Runs a command with its stderr on a pseudo-terminal and its stdout into a file, and prints what
the terminal received (bytes, escaped as Python writes them) followed by the exit status: the
progress test's way to be a user at a terminal. Usage: progress_pty.py STDOUT_FILE COMMAND ..."""
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
with open(sys.argv[1], "wb") as out:
    child = subprocess.Popen(sys.argv[2:], stdout=out, stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
received = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the child closed its end
        break
    if not chunk:
        break
    received += chunk
status = child.wait()
sys.stdout.write(repr(received) + "\n")
sys.stdout.write("status %d\n" % status)
