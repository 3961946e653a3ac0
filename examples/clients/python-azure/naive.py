"""azure-storage-blob, naive: a new client for every object.

Uploads N objects of SIZE bytes, then downloads them, creating
BlobServiceClient.from_connection_string() inside the loop as many snippets
do. Each client has its own HTTP session, so every object pays a new TCP
connection and TLS handshake.

    python3 naive.py [N] [SIZE]     # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from task import Task  # noqa: E402  (examples/clients/task.py)
from provider import download, new_service, upload  # noqa: E402  (this folder's provider.py)


def main():
    t = Task("python-azure naive", bucket_env="OBJBENCH_CONTAINER")
    # The naive part: a new client per object.
    t.run(lambda key: upload(new_service(), t.bucket, key, t.body),
          lambda key: download(new_service(), t.bucket, key))


if __name__ == "__main__":
    main()
