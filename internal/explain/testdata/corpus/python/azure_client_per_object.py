"""azure-storage-blob: a function that makes its own BlobServiceClient
from the connection string for each upload, called in a loop."""
import os

from azure.core.exceptions import ResourceExistsError
from azure.storage.blob import BlobServiceClient

CONN = os.environ["AZURE_STORAGE_CONNECTION_STRING"]
try:
    BlobServiceClient.from_connection_string(CONN).create_container("objbench")
except ResourceExistsError:
    pass


def save(name, data):
    service = BlobServiceClient.from_connection_string(CONN)
    service.get_blob_client("objbench", name).upload_blob(data, overwrite=True)


for i in range(10):
    save(f"corpus-py/azure-per-object/{os.getpid()}/obj-{i:03d}", b"z" * 1024)
