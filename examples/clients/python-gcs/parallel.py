"""google-cloud-storage, parallel: one client shared by a pool of threads.

Uploads N objects of SIZE bytes, then downloads them, WORKERS at a time
(OBJBENCH_WORKERS, default 10: the connection pool of the client's HTTP
session) through one storage.Client(), as transfer_manager does.

    python3 parallel.py [N] [SIZE]  # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import os
import sys

from google.cloud import storage


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from task import Task  # noqa: E402  (examples/clients/task.py)
from provider import download, upload  # noqa: E402  (this folder's provider.py)


def main():
    t = Task("python-gcs parallel")
    client = storage.Client()
    t.run(lambda key: upload(client, t.bucket, key, t.body), lambda key: download(client, t.bucket, key), parallel=True)


if __name__ == "__main__":
    main()
