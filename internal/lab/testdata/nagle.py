# A client as many are written: one socket, Nagle on (the default), each
# PUT's headers and its 100-byte body in two writes; with NODELAY=1 it sets
# TCP_NODELAY. It prints each request's time in milliseconds, one a line.
#   python3 nagle.py [REQUESTS]   (reads AWS_ENDPOINT_URL; plain HTTP)
import os, socket, sys, time, urllib.parse

u = urllib.parse.urlparse(os.environ["AWS_ENDPOINT_URL"])
n = int(sys.argv[1]) if len(sys.argv) > 1 else 6
s = socket.create_connection((u.hostname, u.port))
if os.environ.get("NODELAY") == "1":
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
f = s.makefile("rb")
for i in range(n):
    start = time.monotonic()
    s.sendall(b"PUT /objbench/nagle-%d HTTP/1.1\r\nHost: %s\r\nContent-Length: 100\r\n\r\n" % (i, u.netloc.encode()))
    s.sendall(b"x" * 100)
    status = f.readline()
    length = 0
    while True:
        line = f.readline()
        if line in (b"\r\n", b""):
            break
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    f.read(length)
    print("%.1f %s" % ((time.monotonic() - start) * 1000, status.split()[1].decode()), flush=True)
s.close()
