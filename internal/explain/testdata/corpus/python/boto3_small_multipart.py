"""boto3: upload_file with the TransferConfig of boto3's documentation
example (multipart_threshold and multipart_chunksize of 25 KiB) for
files of 100 KiB, six of them: each becomes a multipart upload."""
import os
import tempfile

import boto3
from boto3.s3.transfer import TransferConfig

config = TransferConfig(multipart_threshold=1024 * 25, max_concurrency=10,
                        multipart_chunksize=1024 * 25, use_threads=True)
s3 = boto3.client("s3")
with tempfile.TemporaryDirectory() as d:
    for i in range(6):
        path = os.path.join(d, f"file-{i}")
        with open(path, "wb") as f:
            f.write(b"u" * 100 * 1024)
        s3.upload_file(path, "objbench", f"corpus-py/multipart/{os.getpid()}/file-{i}", Config=config)
