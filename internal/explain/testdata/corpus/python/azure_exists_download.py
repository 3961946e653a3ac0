"""azure-storage-blob: blob_client.exists() before each download_blob(),
as many samples guard a download; the uploads by a thread pool on one
client."""
import os
from concurrent.futures import ThreadPoolExecutor

from azure.core.exceptions import ResourceExistsError
from azure.storage.blob import BlobServiceClient

service = BlobServiceClient.from_connection_string(os.environ["AZURE_STORAGE_CONNECTION_STRING"])
try:
    service.create_container("objbench")
except ResourceExistsError:
    pass
container = service.get_container_client("objbench")
names = [f"corpus-py/azure-exists/{os.getpid()}/obj-{i:03d}" for i in range(10)]
with ThreadPoolExecutor(max_workers=8) as pool:
    list(pool.map(lambda n: container.upload_blob(n, b"x" * 1024, overwrite=True), names))

for n in names:
    blob = container.get_blob_client(n)
    if blob.exists():
        blob.download_blob().readall()
