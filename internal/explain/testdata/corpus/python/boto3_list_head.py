"""boto3: list a prefix with the paginator, then head_object each key for
its size and ETag (which the listing already gave)."""
import os
from concurrent.futures import ThreadPoolExecutor

import boto3

s3 = boto3.client("s3")
prefix = f"corpus-py/list-head/{os.getpid()}/"
with ThreadPoolExecutor(max_workers=8) as pool:
    list(pool.map(lambda i: s3.put_object(Bucket="objbench", Key=f"{prefix}obj-{i:03d}", Body=b"l" * (1000 + i)), range(12)))

total = 0
for page in s3.get_paginator("list_objects_v2").paginate(Bucket="objbench", Prefix=prefix):
    for obj in page.get("Contents", []):
        meta = s3.head_object(Bucket="objbench", Key=obj["Key"])
        total += meta["ContentLength"]
print(total)
