"""boto3, naive: a new client for every object (seed 003's starting point).

Uploads N objects of SIZE bytes, then downloads them, creating a client the
way most snippets do, inside the loop. Every client has its own connection
pool, so every object pays a new TCP connection and TLS handshake.

    python3 naive.py [N] [SIZE]     # or OBJBENCH_OBJECTS, OBJBENCH_SIZE

See ../README.md for the environment it reads and what it writes.
"""
import json
import os
import sys
import time

import boto3
from botocore.exceptions import ClientError

VARIANT = "python-boto3 naive"


def settings():
    """N, SIZE, the bucket, the key prefix, and whether to download."""
    args = sys.argv[1:]
    n = int(args[0] if args else os.environ.get("OBJBENCH_OBJECTS", "20"))
    size = parse_size(args[1] if len(args) > 1 else os.environ.get("OBJBENCH_SIZE", "1KiB"))
    bucket = os.environ.get("OBJBENCH_BUCKET", "objbench")
    prefix = os.environ.get("OBJBENCH_PREFIX", "clients/boto3-naive/%d-%d" % (os.getpid(), time.time_ns()))
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


def put(s3, bucket, key, body):
    """PutObject, creating the bucket first if it is missing."""
    try:
        s3.put_object(Bucket=bucket, Key=key, Body=body)
    except ClientError as e:
        if e.response["Error"]["Code"] != "NoSuchBucket":
            raise
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key=key, Body=body)


def main():
    n, size, bucket, prefix, download = settings()
    body = os.urandom(size)
    keys = ["%s/obj-%05d" % (prefix, i) for i in range(n)]

    start = time.perf_counter()
    for key in keys:
        s3 = boto3.client("s3")  # the naive part: a new client, so a new connection, per object
        put(s3, bucket, key, body)
    put_s = time.perf_counter() - start

    start = time.perf_counter()
    if download:
        for key in keys:
            s3 = boto3.client("s3")
            got = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
            if len(got) != size:
                sys.exit("%s: %s: got %d bytes, want %d" % (VARIANT, key, len(got), size))
    get_s = time.perf_counter() - start if download else 0.0
    report(n, size, put_s, get_s)


if __name__ == "__main__":
    main()
