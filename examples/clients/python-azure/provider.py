"""azure-storage-blob's upload and download, shared by the three variants."""
import os

from azure.core.exceptions import ResourceNotFoundError
from azure.storage.blob import BlobServiceClient


def new_service():
    """A client of the account in AZURE_STORAGE_CONNECTION_STRING."""
    return BlobServiceClient.from_connection_string(os.environ["AZURE_STORAGE_CONNECTION_STRING"])


def upload(service, container, key, body):
    """ContainerClient.upload_blob, creating the container first if it is
    missing. Up to 64 MiB (max_single_put_size) it is one Put Blob; above,
    Put Block per 4 MiB and a Put Block List."""
    try:
        service.get_container_client(container).upload_blob(key, body, overwrite=True)
    except ResourceNotFoundError:
        service.create_container(container)
        service.get_container_client(container).upload_blob(key, body, overwrite=True)


def ensure_container(service, container):
    """Creates the container when missing (before threads race to)."""
    try:
        service.get_container_client(container).get_container_properties()
    except ResourceNotFoundError:
        service.create_container(container)


def download(service, container, key):
    return service.get_container_client(container).download_blob(key).readall()
