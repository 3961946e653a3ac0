"""google-cloud-storage: one storage.Client shared by a thread pool, 24
uploads with upload_from_string, then 24 download_as_bytes, 8 at a time."""
import os
from concurrent.futures import ThreadPoolExecutor

from google.cloud import storage

client = storage.Client()
bucket = client.bucket("objbench")
names = [f"corpus-py/gcs-pool/{os.getpid()}/obj-{i:03d}" for i in range(24)]
with ThreadPoolExecutor(max_workers=8) as pool:
    list(pool.map(lambda n: bucket.blob(n).upload_from_string(b"g" * 1024), names))
    list(pool.map(lambda n: bucket.blob(n).download_as_bytes(), names))
