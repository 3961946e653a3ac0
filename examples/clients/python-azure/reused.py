"""azure-storage-blob, reused: one client for every object.

Uploads N objects of SIZE bytes, then downloads them, through one
BlobServiceClient created once: its HTTP session keeps the connection open.

    python3 reused.py [N] [SIZE]    # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from task import Task  # noqa: E402  (examples/clients/task.py)
from provider import download, new_service, upload  # noqa: E402  (this folder's provider.py)


def main():
    t = Task("python-azure reused", bucket_env="OBJBENCH_CONTAINER")
    service = new_service()
    t.run(lambda key: upload(service, t.bucket, key, t.body), lambda key: download(service, t.bucket, key))


if __name__ == "__main__":
    main()
