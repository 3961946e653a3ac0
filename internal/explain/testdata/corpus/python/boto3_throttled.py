"""boto3, 500 uploads under one prefix as fast as 16 threads send them
(botocore's default retry mode, standard in its 1.4x releases, unless
AWS_RETRY_MODE says otherwise): on a lab that limits writes the store answers 503 SlowDown and
botocore backs off and retries. Prints what botocore's own debug log says
it slept ("Retry needed, ..." delays, summed), which explain's backoff
must match; a request botocore gave up on is counted, not fatal."""
import logging
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

DELAY = re.compile(r"Retry needed, (?:action of|retrying request after delay of): ([0-9.eE+-]+)")


class Slept(logging.Handler):
    """Sums the delays botocore logs before each retry."""

    def __init__(self):
        super().__init__()
        self.total, self.retries, self.mu = 0.0, 0, threading.Lock()

    def emit(self, record):
        m = DELAY.match(record.getMessage())
        if m:
            with self.mu:
                self.total += float(m.group(1))
                self.retries += 1


slept = Slept()
for name in ("botocore.retryhandler", "botocore.retries.standard"):
    log = logging.getLogger(name)
    log.setLevel(logging.DEBUG)
    log.addHandler(slept)
    log.propagate = False

n = int(os.environ.get("OBJBENCH_OBJECTS", "500"))
s3 = boto3.client("s3", config=Config(max_pool_connections=16))
keys = [f"corpus-py/throttled/{os.getpid()}/obj-{i:04d}" for i in range(n)]
gave_up = 0


def put(key):
    global gave_up
    try:
        s3.put_object(Bucket="objbench", Key=key, Body=b"t" * 1024)
    except ClientError:
        gave_up += 1


with ThreadPoolExecutor(max_workers=16) as pool:
    list(pool.map(put, keys))
print(f"botocore: {slept.retries} retries, slept {slept.total:.3f} s, gave up {gave_up}")
