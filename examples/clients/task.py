"""The task every Python variant does, apart from how it uses its client:
its settings, the timed uploads and checked downloads (one at a time, or
WORKERS at a time), and the report. Same arguments and environment as the
Node.js programs (README.md). Each library's folder has provider.py, the
upload that creates a missing bucket and the download, shared by its three
variants.
"""
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "KB": 1000, "MB": 1000 * 1000, "B": 1}


def parse_size(s):
    for u, m in UNITS.items():
        if s.endswith(u):
            return int(float(s[: -len(u)]) * m)
    return int(s)


class Task:
    """N objects of SIZE under a prefix of their own, from the arguments
    (N, SIZE) or the environment; variant is "LIBRARY VARIANT", e.g.
    "python-boto3 naive", and bucket_env the variable naming the bucket."""

    def __init__(self, variant, bucket_env="OBJBENCH_BUCKET"):
        args = sys.argv[1:]
        self.variant = variant
        self.n = int(args[0] if args else os.environ.get("OBJBENCH_OBJECTS", "20"))
        self.size = parse_size(args[1] if len(args) > 1 else os.environ.get("OBJBENCH_SIZE", "1KiB"))
        self.bucket = os.environ.get(bucket_env, "objbench")
        name = variant.removeprefix("python-").replace(" ", "-")
        prefix = os.environ.get("OBJBENCH_PREFIX", "clients/%s/%d-%d" % (name, os.getpid(), time.time_ns()))
        self.keys = ["%s/obj-%05d" % (prefix, i) for i in range(self.n)]
        self.download = os.environ.get("OBJBENCH_OPS", "put,get") != "put"
        self.workers = int(os.environ.get("OBJBENCH_WORKERS", "10"))
        self.body = os.urandom(self.size)
        # OBJBENCH_RATE: objects started per second (open loop: object i is
        # due i/RATE s after the start, its time counted from then); unset,
        # as fast as the variant goes. OBJBENCH_KEEP_GOING: a failed object
        # is counted, not fatal.
        self.rate = float(os.environ.get("OBJBENCH_RATE", "0") or 0)
        self.keep_going = os.environ.get("OBJBENCH_KEEP_GOING", "") not in ("", "0")
        self.put_times, self.failed, self.lock = [], 0, threading.Lock()

    def run(self, put, get, parallel=False):
        """Times put(key) for every key, then get(key), whose length it
        checks (unless OBJBENCH_OPS=put), one at a time or, parallel,
        WORKERS at a time in a thread pool made before the clock starts;
        then reports."""

        def check(key):
            got = get(key)
            if len(got) != self.size:
                raise RuntimeError("%s: %s: got %d bytes, want %d" % (self.variant, key, len(got), self.size))

        def each(fn, pool, times=None):
            start = time.perf_counter()

            def one(item):
                i, key = item
                due = time.perf_counter()
                if self.rate > 0:
                    due = start + i / self.rate
                    time.sleep(max(0.0, due - time.perf_counter()))
                try:
                    fn(key)
                except Exception:
                    if not self.keep_going:
                        raise
                    with self.lock:
                        self.failed += 1
                    return
                if times is not None:
                    times.append(time.perf_counter() - due)

            if pool:
                list(pool.map(one, enumerate(self.keys)))
            else:
                for item in enumerate(self.keys):
                    one(item)
            return time.perf_counter() - start

        if parallel:
            with ThreadPoolExecutor(max_workers=self.workers) as pool:
                put_s = each(put, pool, self.put_times)
                get_s = each(check, pool) if self.download else 0.0
        else:
            put_s = each(put, None, self.put_times)
            get_s = each(check, None) if self.download else 0.0
        self.report(put_s, get_s)

    def report(self, put_s, get_s):
        """One line on stdout; a JSON line appended to $OBJBENCH_CLIENT_TIMES."""
        print("%s: %d objects of %d B: upload %.3f s, download %.3f s" % (self.variant, self.n, self.size, put_s, get_s)
              + (", %d failed" % self.failed if self.failed else ""))
        if os.environ.get("OBJBENCH_CLIENT_TIMES"):
            with open(os.environ["OBJBENCH_CLIENT_TIMES"], "a") as f:
                line = {"program": self.variant, "objects": self.n, "size": self.size, "put_s": put_s, "get_s": get_s,
                        "failed": self.failed}
                if self.put_times:
                    t = sorted(self.put_times)
                    line["put_p50_s"], line["put_p99_s"] = t[len(t) // 2], t[min(len(t) - 1, int(0.99 * len(t)))]
                f.write(json.dumps(line) + "\n")
