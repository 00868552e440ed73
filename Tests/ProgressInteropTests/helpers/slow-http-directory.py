#!/usr/bin/python3
"""An HTTP server for the files of DIRECTORY, each sent in 32 KiB pieces DELAY seconds
apart (with its Content-Length): an apt repository whose downloads take long enough to be
seen. Prints its port, then serves until end of input (its lifeline)."""
import functools
import socketserver
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler

DIRECTORY, DELAY, CHUNK = sys.argv[1], float(sys.argv[2]), 32768


class Handler(SimpleHTTPRequestHandler):
    def copyfile(self, source, destination):
        while True:
            piece = source.read(CHUNK)
            if not piece:
                return
            destination.write(piece)
            destination.flush()
            time.sleep(DELAY)

    def log_message(self, *args):
        pass


server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), functools.partial(Handler, directory=DIRECTORY))
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print("port %d" % server.server_address[1], flush=True)
sys.stdin.read()
