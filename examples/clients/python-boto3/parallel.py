"""boto3, parallel: one client shared by a pool of threads.

Uploads N objects of SIZE bytes, then downloads them, WORKERS at a time
(OBJBENCH_WORKERS, default 10, botocore's default max_pool_connections)
through one client: boto3 clients are thread-safe, and the pool keeps one
connection per thread, so N objects cost about N/WORKERS round trips.

    python3 parallel.py [N] [SIZE]  # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import os
import sys

import boto3
from botocore.config import Config


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from task import Task  # noqa: E402  (examples/clients/task.py)
from provider import get, put  # noqa: E402  (this folder's provider.py)


def main():
    t = Task("python-boto3 parallel")
    s3 = boto3.client("s3", config=Config(max_pool_connections=max(t.workers, 10)))
    t.run(lambda key: put(s3, t.bucket, key, t.body), lambda key: get(s3, t.bucket, key), parallel=True)


if __name__ == "__main__":
    main()
