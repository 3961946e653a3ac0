"""boto3's upload and download, shared by the three variants."""
from botocore.exceptions import ClientError


def put(s3, bucket, key, body):
    """PutObject, creating the bucket first if it is missing."""
    try:
        s3.put_object(Bucket=bucket, Key=key, Body=body)
    except ClientError as e:
        if e.response["Error"]["Code"] != "NoSuchBucket":
            raise
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key=key, Body=body)


def get(s3, bucket, key):
    return s3.get_object(Bucket=bucket, Key=key)["Body"].read()
