"""boto3: check each object with head_object, then download it, as many
snippets do ("does the key exist?", then get_object). OBJBENCH_NO_HEAD=1
runs the fixed program: get_object alone."""
import os
from concurrent.futures import ThreadPoolExecutor

import boto3

s3 = boto3.client("s3")
keys = [f"corpus-py/head-get/{os.getpid()}/obj-{i:03d}" for i in range(12)]
with ThreadPoolExecutor(max_workers=8) as pool:
    list(pool.map(lambda k: s3.put_object(Bucket="objbench", Key=k, Body=b"h" * 1024), keys))

for key in keys:
    if not os.environ.get("OBJBENCH_NO_HEAD"):
        meta = s3.head_object(Bucket="objbench", Key=key)
        if meta["ContentLength"] == 0:
            continue
    data = s3.get_object(Bucket="objbench", Key=key)["Body"].read()
