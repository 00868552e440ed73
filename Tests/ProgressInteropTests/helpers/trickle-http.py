#!/usr/bin/python3
"""An HTTP server that sends one file of SIZE bytes (with its Content-Length, so KIO knows
the total) in 64 KiB pieces DELAY seconds apart: a copy slow enough to watch, cancel and
kill. Prints its port, then serves until end of input (its lifeline)."""
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

SIZE, DELAY, CHUNK = int(sys.argv[1]), float(sys.argv[2]), 65536


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(SIZE))
        self.end_headers()
        sent = 0
        try:
            while sent < SIZE:
                count = min(CHUNK, SIZE - sent)
                self.wfile.write(b"x" * count)
                self.wfile.flush()
                sent += count
                time.sleep(DELAY)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print("port %d" % server.server_address[1], flush=True)
sys.stdin.read()
