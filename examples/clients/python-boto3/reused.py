"""boto3, reused: one client for every object.

Uploads N objects of SIZE bytes, then downloads them, through one client
created once, as the boto3 documentation recommends: its connection pool
keeps one connection open, so only the first object pays the TCP and TLS
handshakes.

    python3 reused.py [N] [SIZE]    # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import os
import sys

import boto3


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from task import Task  # noqa: E402  (examples/clients/task.py)
from provider import get, put  # noqa: E402  (this folder's provider.py)


def main():
    t = Task("python-boto3 reused")
    s3 = boto3.client("s3")  # once: its connection pool is reused by every request
    t.run(lambda key: put(s3, t.bucket, key, t.body), lambda key: get(s3, t.bucket, key))


if __name__ == "__main__":
    main()
