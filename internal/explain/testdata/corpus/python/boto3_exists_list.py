"""boto3: upload only what is missing, checking each key with
list_objects_v2(Prefix=key) first (a popular answer to "does this key
exist?")."""
import os

import boto3

s3 = boto3.client("s3")
prefix = f"corpus-py/exists/{os.getpid()}"
for i in range(10):
    key = f"{prefix}/obj-{i:03d}"
    resp = s3.list_objects_v2(Bucket="objbench", Prefix=key, MaxKeys=1)
    if resp.get("KeyCount", 0) == 0:
        s3.put_object(Bucket="objbench", Key=key, Body=b"e" * 1024)
