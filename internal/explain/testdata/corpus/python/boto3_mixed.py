"""boto3, three patterns in one program: a thread pool uploads on a shared
client; then a loop of small uploads on the same client; then a few reads,
each through a client made where it is needed (a helper that builds its
own)."""
import os
from concurrent.futures import ThreadPoolExecutor

import boto3

s3 = boto3.client("s3")
prefix = f"corpus-py/mixed/{os.getpid()}"
with ThreadPoolExecutor(max_workers=8) as pool:
    list(pool.map(lambda i: s3.put_object(Bucket="objbench", Key=f"{prefix}/batch-{i:03d}", Body=b"m" * 4096), range(16)))

for i in range(8):
    s3.put_object(Bucket="objbench", Key=f"{prefix}/small-{i:03d}", Body=b"s" * 512)


def read(key):
    client = boto3.client("s3")
    return client.get_object(Bucket="objbench", Key=key)["Body"].read()


for i in range(3):
    read(f"{prefix}/batch-{i:03d}")
