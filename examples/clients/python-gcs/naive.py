"""google-cloud-storage, naive: a new client for every object.

Uploads N objects of SIZE bytes, then downloads them, creating
storage.Client() inside the loop as many snippets do. Each client has its
own HTTP session, so every object pays a new TCP connection and TLS
handshake; objects above 8 MiB go as resumable uploads (two requests).

    python3 naive.py [N] [SIZE]     # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import os
import sys

from google.cloud import storage


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from task import Task  # noqa: E402  (examples/clients/task.py)
from provider import download, upload  # noqa: E402  (this folder's provider.py)


def main():
    t = Task("python-gcs naive")
    # The naive part: a new client, so a new connection, per object.
    t.run(lambda key: upload(storage.Client(), t.bucket, key, t.body),
          lambda key: download(storage.Client(), t.bucket, key))


if __name__ == "__main__":
    main()
