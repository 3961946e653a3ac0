"""azure-storage-blob, parallel: one client shared by a pool of threads.

Uploads N objects of SIZE bytes, then downloads them, WORKERS at a time
(OBJBENCH_WORKERS, default 10: the connection pool of the client's HTTP
session) through one BlobServiceClient, which is thread-safe.

    python3 parallel.py [N] [SIZE]  # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from azure.core.exceptions import ResourceNotFoundError
from azure.storage.blob import BlobServiceClient

VARIANT = "python-azure parallel"



def settings():
    """N, SIZE, the container, the key prefix, and whether to download."""
    args = sys.argv[1:]
    n = int(args[0] if args else os.environ.get("OBJBENCH_OBJECTS", "20"))
    size = parse_size(args[1] if len(args) > 1 else os.environ.get("OBJBENCH_SIZE", "1KiB"))
    bucket = os.environ.get("OBJBENCH_CONTAINER", "objbench")
    prefix = os.environ.get("OBJBENCH_PREFIX", "clients/azure-parallel/%d-%d" % (os.getpid(), time.time_ns()))
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


def upload(service, container, key, body):
    """ContainerClient.upload_blob, creating the container first if it is
    missing. Up to 64 MiB (max_single_put_size) it is one Put Blob; above,
    Put Block per 4 MiB and a Put Block List."""
    try:
        service.get_container_client(container).upload_blob(key, body, overwrite=True)
    except ResourceNotFoundError:
        service.create_container(container)
        service.get_container_client(container).upload_blob(key, body, overwrite=True)


def download(service, container, key, size):
    got = service.get_container_client(container).download_blob(key).readall()
    if len(got) != size:
        raise RuntimeError("%s: %s: got %d bytes, want %d" % (VARIANT, key, len(got), size))


def main():
    n, size, container, prefix, download_too = settings()
    workers = int(os.environ.get("OBJBENCH_WORKERS", "10"))
    body = os.urandom(size)
    keys = ["%s/obj-%05d" % (prefix, i) for i in range(n)]
    service = BlobServiceClient.from_connection_string(os.environ["AZURE_STORAGE_CONNECTION_STRING"])
    # The container first: threads racing to create it would collide.
    try:
        service.get_container_client(container).get_container_properties()
    except ResourceNotFoundError:
        service.create_container(container)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        start = time.perf_counter()
        list(pool.map(lambda key: upload(service, container, key, body), keys))
        put_s = time.perf_counter() - start

        start = time.perf_counter()
        if download_too:
            list(pool.map(lambda key: download(service, container, key, size), keys))
        get_s = time.perf_counter() - start if download_too else 0.0
    report(n, size, put_s, get_s)


if __name__ == "__main__":
    main()
