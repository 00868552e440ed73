#!/usr/bin/python3
"""Runs COMMAND... on a pseudo-terminal of 24 rows and 80 columns that this script owns, as
a terminal emulator would, and appends everything the command writes to the terminal to
OUTPUT: what a tmux client sends to its outer terminal. Exits with the command's status
once the command has exited and its output is read."""
import fcntl
import os
import pty
import struct
import sys
import termios

output, command = sys.argv[1], sys.argv[2:]
pid, master = pty.fork()
if pid == 0:
    # Before exec, so that the command reads its size at once.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    os.execvp(command[0], command)
with open(output, "ab") as recording:
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the last process holding the terminal closed it
            break
        if not data:
            break
        recording.write(data)
        recording.flush()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
