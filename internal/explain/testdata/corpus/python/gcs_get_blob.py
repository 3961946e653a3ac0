"""google-cloud-storage: bucket.get_blob(name) (it fetches the metadata)
then download_as_bytes(), as the library's samples write a download that
needs the blob's size; then the loop runs again (the report reads each
twice)."""
import os
from concurrent.futures import ThreadPoolExecutor

from google.cloud import storage

client = storage.Client()
bucket = client.bucket("objbench")
names = [f"corpus-py/gcs-get-blob/{os.getpid()}/obj-{i:03d}" for i in range(10)]
with ThreadPoolExecutor(max_workers=8) as pool:
    list(pool.map(lambda n: bucket.blob(n).upload_from_string(b"b" * 2048), names))

for n in names:
    blob = bucket.get_blob(n)
    data = blob.download_as_bytes()
    assert len(data) == blob.size
for n in names:
    bucket.blob(n).download_as_bytes()
