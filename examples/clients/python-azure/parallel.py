"""azure-storage-blob, parallel: one client shared by a pool of threads.

Uploads N objects of SIZE bytes, then downloads them, WORKERS at a time
(OBJBENCH_WORKERS, default 10: the connection pool of the client's HTTP
session) through one BlobServiceClient, which is thread-safe.

    python3 parallel.py [N] [SIZE]  # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from task import Task  # noqa: E402  (examples/clients/task.py)
from provider import download, ensure_container, new_service, upload  # noqa: E402  (this folder's provider.py)


def main():
    t = Task("python-azure parallel", bucket_env="OBJBENCH_CONTAINER")
    service = new_service()
    ensure_container(service, t.bucket)  # the container first: threads racing to create it would collide
    t.run(lambda key: upload(service, t.bucket, key, t.body), lambda key: download(service, t.bucket, key), parallel=True)


if __name__ == "__main__":
    main()
