"""boto3, one client shared by a thread pool (boto3's docs: clients are
thread safe): 24 uploads, then 24 downloads, 8 at a time."""
import os
from concurrent.futures import ThreadPoolExecutor

import boto3

s3 = boto3.client("s3")
keys = [f"corpus-py/threadpool/{os.getpid()}/obj-{i:03d}" for i in range(24)]
body = b"p" * 1024

with ThreadPoolExecutor(max_workers=8) as pool:
    list(pool.map(lambda k: s3.put_object(Bucket="objbench", Key=k, Body=body), keys))
    list(pool.map(lambda k: s3.get_object(Bucket="objbench", Key=k)["Body"].read(), keys))
