"""google-cloud-storage, naive: a new client for every object.

Uploads N objects of SIZE bytes, then downloads them, creating
storage.Client() inside the loop as many snippets do. Each client has its
own HTTP session, so every object pays a new TCP connection and TLS
handshake; objects above 8 MiB go as resumable uploads (two requests).

    python3 naive.py [N] [SIZE]     # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import json
import os
import sys
import time

from google.cloud import storage
from google.api_core.exceptions import NotFound

VARIANT = "python-gcs naive"


def settings():
    """N, SIZE, the bucket, the key prefix, and whether to download."""
    args = sys.argv[1:]
    n = int(args[0] if args else os.environ.get("OBJBENCH_OBJECTS", "20"))
    size = parse_size(args[1] if len(args) > 1 else os.environ.get("OBJBENCH_SIZE", "1KiB"))
    bucket = os.environ.get("OBJBENCH_BUCKET", "objbench")
    prefix = os.environ.get("OBJBENCH_PREFIX", "clients/gcs-naive/%d-%d" % (os.getpid(), time.time_ns()))
    download = os.environ.get("OBJBENCH_OPS", "put,get") != "put"
    return n, size, bucket, prefix, download


def parse_size(s):
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "KB": 1000, "MB": 1000 * 1000, "B": 1}
    for u, m in units.items():
        if s.endswith(u):
            return int(float(s[: -len(u)]) * m)
    return int(s)


def report(n, size, put_s, get_s):
    """One line on stdout; a JSON line appended to $OBJBENCH_CLIENT_TIMES."""
    print("%s: %d objects of %d B: upload %.3f s, download %.3f s" % (VARIANT, n, size, put_s, get_s))
    if os.environ.get("OBJBENCH_CLIENT_TIMES"):
        with open(os.environ["OBJBENCH_CLIENT_TIMES"], "a") as f:
            f.write(json.dumps({"program": VARIANT, "objects": n, "size": size, "put_s": put_s, "get_s": get_s}) + "\n")

def upload(client, bucket_name, key, body):
    """Blob.upload_from_string, creating the bucket first if it is missing.
    Up to 8 MiB it is one multipart request; above, a resumable upload
    (an initiation request, then the data)."""
    try:
        client.bucket(bucket_name).blob(key).upload_from_string(body)
    except NotFound:
        client.create_bucket(bucket_name)
        client.bucket(bucket_name).blob(key).upload_from_string(body)


def download(client, bucket_name, key, size):
    got = client.bucket(bucket_name).blob(key).download_as_bytes()
    if len(got) != size:
        raise RuntimeError("%s: %s: got %d bytes, want %d" % (VARIANT, key, len(got), size))


def main():
    n, size, bucket, prefix, download_too = settings()
    body = os.urandom(size)
    keys = ["%s/obj-%05d" % (prefix, i) for i in range(n)]

    start = time.perf_counter()
    for key in keys:
        client = storage.Client()  # the naive part: a new client, so a new connection, per object
        upload(client, bucket, key, body)
    put_s = time.perf_counter() - start

    start = time.perf_counter()
    if download_too:
        for key in keys:
            download(storage.Client(), bucket, key, size)
    get_s = time.perf_counter() - start if download_too else 0.0
    report(n, size, put_s, get_s)


if __name__ == "__main__":
    main()
