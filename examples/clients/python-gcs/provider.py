"""google-cloud-storage's upload and download, shared by the three variants."""
from google.api_core.exceptions import NotFound


def upload(client, bucket_name, key, body):
    """Blob.upload_from_string, creating the bucket first if it is missing.
    Up to 8 MiB it is one multipart request; above, a resumable upload
    (an initiation request, then the data)."""
    try:
        client.bucket(bucket_name).blob(key).upload_from_string(body)
    except NotFound:
        client.create_bucket(bucket_name)
        client.bucket(bucket_name).blob(key).upload_from_string(body)


def download(client, bucket_name, key):
    return client.bucket(bucket_name).blob(key).download_as_bytes()
