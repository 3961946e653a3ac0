"""boto3, naive: a new client for every object (what a function that builds its client per call does).

Uploads N objects of SIZE bytes, then downloads them, creating a client the
way most snippets do, inside the loop. Every client has its own connection
pool, so every object pays a new TCP connection and TLS handshake.

    python3 naive.py [N] [SIZE]     # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import os
import sys

import boto3


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from task import Task  # noqa: E402  (examples/clients/task.py)
from provider import get, put  # noqa: E402  (this folder's provider.py)


def main():
    t = Task("python-boto3 naive")
    # The naive part: a new client, so a new connection, per object.
    t.run(lambda key: put(boto3.client("s3"), t.bucket, key, t.body),
          lambda key: get(boto3.client("s3"), t.bucket, key))


if __name__ == "__main__":
    main()
