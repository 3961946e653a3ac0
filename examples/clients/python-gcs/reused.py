"""google-cloud-storage, reused: one client for every object.

Uploads N objects of SIZE bytes, then downloads them, through one
storage.Client() created once: its HTTP session keeps the connection open.

    python3 reused.py [N] [SIZE]    # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import os
import sys

from google.cloud import storage


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from task import Task  # noqa: E402  (examples/clients/task.py)
from provider import download, upload  # noqa: E402  (this folder's provider.py)


def main():
    t = Task("python-gcs reused")
    client = storage.Client()  # once: its HTTP session is reused by every request
    t.run(lambda key: upload(client, t.bucket, key, t.body), lambda key: download(client, t.bucket, key))


if __name__ == "__main__":
    main()
