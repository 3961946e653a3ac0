"""google-cloud-storage: a function that makes its own storage.Client for
each upload, called in a loop."""
import os

from google.cloud import storage


def save(name, data):
    client = storage.Client()
    client.bucket("objbench").blob(name).upload_from_string(data)


for i in range(10):
    save(f"corpus-py/gcs-per-object/{os.getpid()}/obj-{i:03d}", b"c" * 1024)
