"""boto3: read records from 1 MiB objects with small ranged GETs (a
reader that seeks: 8 records of 4 KiB from each)."""
import os

import boto3

s3 = boto3.client("s3")
prefix = f"corpus-py/ranges/{os.getpid()}"
for i in range(3):
    s3.put_object(Bucket="objbench", Key=f"{prefix}/obj-{i}", Body=b"r" * (1 << 20))
for i in range(3):
    for rec in range(8):
        start = rec * 128 * 1024
        s3.get_object(Bucket="objbench", Key=f"{prefix}/obj-{i}", Range=f"bytes={start}-{start + 4095}")["Body"].read()
