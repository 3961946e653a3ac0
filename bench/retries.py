#!/usr/bin/env python3
"""What each client library's retries cost under a throttling store.

    bench/retries.sh [--limit-rate 50] [--rates 25,50,100] [--objects 150]
                     [--only REGEX] [--json] [LAB FLAGS...]

Every library of examples/clients (its parallel variant, uploads only), in
its default retry mode and, where it has one, its adaptive mode, runs under
`objbench explain --json` on a lab whose writes are limited to LIMIT per
second on one prefix (S3), bucket (GCS) or account (Azure), at each offered
rate (objects started per second, open loop: OBJBENCH_RATE). A row per
library, mode and rate:

  goodput     objects stored per second (the program's upload time)
  p99         the uploads' 99th percentile, from when each was due (s)
  req/obj     requests that reached the store per object (attempts)
  backoff     seconds the program waited before retries, summed over them
              (explain's throttling finding: the gaps before each retry)
  give-ups    objects the library gave up on (the program counts them)
  retry 1/2   the gaps before first and second retries: mean and max (s)

and beside it the library's documented policy: attempts, backoff base and
cap, jitter (the sources are in docs/clients.md). --json prints the rows
with the measured gaps per retry and the policy's bounds, which
examples/clients' TestRetryPolicies holds the libraries to.

It installs the pinned libraries first (scripts/clients install), builds
objbench and examples/clients/go-awssdk from this checkout (unless
$OBJBENCH names a binary), and needs azurite-blob on PATH for the Azure
rows (left out, and said so, without it). Takes minutes: Azure's first
retry waits 15 to 21 s.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CLIENTS = os.path.join(ROOT, "examples", "clients")


def full_jitter(base, cap, first=0):
    """Bounds of retry i (1-based) for rand(0,1) x min(base x 2^(i-1+first), cap)."""
    return lambda i: (0.0, min(base * 2 ** (i - 1 + first), cap))


def azure_bounds(i):
    """ExponentialRetry(initial_backoff=15, increment_base=3, random_jitter_range=3):
    15 + 3^i seconds, +-3 (the retry count is raised before the sleep)."""
    b = 15 + 3 ** i
    return (b - 3.0, b + 3.0)


# Documented policies, by library and mode: attempts (None: until a
# deadline), the text of the table, and each retry's backoff bounds for a
# throttled answer. Adaptive modes add a client-side rate limiter's wait to
# the backoff, so only their lower bound holds.
POLICIES = {
    ("python-boto3", "standard"): dict(
        attempts=3, bounds=full_jitter(1.0, 20.0),
        text="3 attempts; rand x min(1 s x 2^i, 20 s) on throttling (50 ms base otherwise); quota 500 tokens, 5 per retry"),
    ("python-boto3", "adaptive"): dict(
        attempts=3, bounds=full_jitter(1.0, 20.0), adaptive=True,
        text="standard's, plus a client-side token bucket that slows on throttles (CUBIC)"),
    ("node-s3", "standard"): dict(
        attempts=3, bounds=full_jitter(1.0, 20.0),
        text="3 attempts; rand x min(1 s x 2^i, 20 s) on throttling (50 ms base otherwise); quota 500 tokens, 5 per throttled retry"),
    ("node-s3", "adaptive"): dict(
        attempts=3, bounds=full_jitter(1.0, 20.0), adaptive=True,
        text="standard's, plus a client-side token bucket that slows on throttles"),
    ("go-awssdk", "standard"): dict(
        attempts=3, bounds=full_jitter(1.0, 20.0, first=1),
        text="3 attempts; rand x 2^attempt s (0-2 s, then 0-4 s), cap 20 s; quota 500 tokens, 5 per retry"),
    ("go-awssdk", "adaptive"): dict(
        attempts=3, bounds=full_jitter(1.0, 20.0, first=1), adaptive=True,
        text="standard's, plus a client-side token bucket that slows on throttles"),
    ("python-gcs", "default"): dict(
        attempts=None, bounds=full_jitter(1.0, 60.0),
        text="DEFAULT_RETRY: until 120 s; uniform(0, d), d from 1 s doubling to 60 s; 429 and 5xx; no adaptive mode"),
    ("python-azure", "default"): dict(
        attempts=4, bounds=azure_bounds,
        text="ExponentialRetry: 3 retries after 15 s + 3^n (+-3 s): 15-21, 21-27, 39-45 s; no adaptive mode"),
}

# (library, mode, argv, env): {py} the venv's python, {go} this checkout's go-awssdk.
PROGRAMS = [
    ("python-boto3", "standard", ["{py}", "python-boto3/parallel.py"], {}),
    ("python-boto3", "adaptive", ["{py}", "python-boto3/parallel.py"], {"AWS_RETRY_MODE": "adaptive"}),
    ("node-s3", "standard", ["node", "node-s3/parallel.cjs"], {}),
    ("node-s3", "adaptive", ["node", "node-s3/parallel.cjs"], {"AWS_RETRY_MODE": "adaptive"}),
    ("go-awssdk", "standard", ["{go}", "parallel"], {}),
    ("go-awssdk", "adaptive", ["{go}", "parallel"], {"AWS_RETRY_MODE": "adaptive"}),
    ("python-gcs", "default", ["{py}", "python-gcs/parallel.py"], {}),
    ("python-azure", "default", ["{py}", "python-azure/parallel.py"], {}),
]

API = {"python-boto3": "s3", "node-s3": "s3", "go-awssdk": "s3", "python-gcs": "gcs", "python-azure": "azure"}


def die(msg, code=2):
    print("retries: " + msg, file=sys.stderr)
    sys.exit(code)


def throttled(status):
    return status in (429, 503)


def retry_gaps(e):
    """The gaps before each retry, by retry number (1: the first retry of an
    object), and the most attempts one object took: each throttled answer,
    then the next request of the same operation (explain's rule: the SDK's
    invocation id, else the method and object)."""
    rtt = e["rtt_ms"] / 1000
    reqs = []
    for c in e["conns"]:
        for i, r in enumerate(c["requests"]):
            reqs.append((r, c, i))
    reqs.sort(key=lambda x: x[0]["arrived_s"])
    by_op = defaultdict(list)
    for x in reqs:
        r = x[0]
        by_op[r.get("invocation") or (r["method"], r.get("key") or r["path"])].append(x)
    gaps, most = defaultdict(list), 0
    for chain in by_op.values():
        n = 0  # retries so far in the current chain
        attempts = 0
        for k, (r, c, i) in enumerate(chain):
            attempts += 1
            most = max(most, attempts)
            if not throttled(r["status"]):
                n, attempts = 0, 0
                continue
            if k + 1 >= len(chain):
                break
            q, qc, qi = chain[k + 1]
            answered = r["done_s"] + rtt / 2
            left = q["arrived_s"] - rtt / 2
            if qi == 0 and qc["opened_s"] >= answered:
                left = qc["opened_s"]
            n += 1
            gaps[n].append(max(left - answered, 0.0))
    return gaps, most


def finding(e, fid):
    for f in e.get("findings") or []:
        if f["id"] == fid:
            return f
    return None


def limit_flags(objbench, rate):
    """The lab flags that limit writes to rate per second on one prefix,
    bucket and account, growth off; a stand-in (random 503s) on an objbench
    without --limit."""
    out = subprocess.run([objbench, "explain", "--help"], capture_output=True, text=True).stdout
    if "--limit" in out:
        return ["--limit", "s3:put=%g/s,partition=off;gcs:write=%g/s,ramp=off;azure:account=%g/s" % (rate, rate, rate)], True
    print("retries: this objbench has no --limit: random 503s (--fault slowdown=30%) stand in", file=sys.stderr)
    return ["--fault", "slowdown=30%"], False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit-rate", type=float, default=50, help="writes per second the lab admits per prefix, bucket, account")
    ap.add_argument("--rates", default="", help="offered rates, objects/s (default: half, once and twice the limit)")
    ap.add_argument("--objects", type=int, default=150)
    ap.add_argument("--workers", type=int, default=128, help="requests in flight at most (enough for the rate through the backoff)")
    ap.add_argument("--only", default="", help="regex on 'library mode'")
    ap.add_argument("--json", action="store_true")
    args, lab = ap.parse_known_args()
    rates = [float(x) for x in args.rates.split(",")] if args.rates else [args.limit_rate / 2, args.limit_rate, 2 * args.limit_rate]

    env = dict(os.environ)
    clients = env.get("OBJBENCH_CLIENTS", "")
    if not (os.path.exists(os.path.join(clients, "venv", "bin", "python")) and
            os.path.isdir(os.path.join(clients, "node", "node_modules", "@aws-sdk", "client-s3"))):
        # Not installed where OBJBENCH_CLIENTS says: scripts/clients installs them.
        out = subprocess.run([os.path.join(ROOT, "scripts", "clients"), "install"], capture_output=True, text=True)
        if out.returncode != 0:
            die("scripts/clients install failed:\n" + out.stderr, 1)
        m = re.search(r"OBJBENCH_CLIENTS=(\S+)", out.stdout)
        clients = env["OBJBENCH_CLIENTS"] = m.group(1) if m else os.path.join(ROOT, ".cache", "clients")
    tmp = tempfile.mkdtemp(prefix="retries-")
    objbench = env.get("OBJBENCH")
    if not objbench:
        objbench = os.path.join(tmp, "objbench")
        subprocess.run(["go", "build", "-o", objbench, "./cmd/objbench"], cwd=ROOT, check=True)
    gosdk = os.path.join(tmp, "go-awssdk")
    subprocess.run(["go", "build", "-o", gosdk, "./examples/clients/go-awssdk"], cwd=ROOT, check=True)
    env["NODE_PATH"] = os.path.join(clients, "node", "node_modules")
    limits, limited = limit_flags(objbench, args.limit_rate)
    have_azurite = subprocess.run(["sh", "-c", "command -v azurite-blob"], capture_output=True, env=env).returncode == 0

    rows = []
    for lib, mode, argv, extra in PROGRAMS:
        if args.only and not re.search(args.only, "%s %s" % (lib, mode)):
            continue
        if API[lib] == "azure" and not have_azurite:
            print("retries: %s left out: no azurite-blob on PATH (scripts/services installs it)" % lib, file=sys.stderr)
            continue
        pol = POLICIES[(lib, mode)]
        for rate in rates:
            times = os.path.join(tmp, "times.jsonl")
            if os.path.exists(times):
                os.remove(times)
            penv = dict(env, OBJBENCH_OPS="put", OBJBENCH_OBJECTS=str(args.objects), OBJBENCH_RATE="%g" % rate,
                        OBJBENCH_WORKERS=str(args.workers), OBJBENCH_KEEP_GOING="1", OBJBENCH_CLIENT_TIMES=times,
                        OBJBENCH_PREFIX="retries/%s-%s-%g" % (lib, mode, rate))
            penv.pop("AWS_RETRY_MODE", None)
            penv.update(extra)
            cmd = [objbench, "explain", "cross-region", "--rtt", "20ms", "--apis", API[lib], "--no-save", "--json",
                   "--timeout", "10m"] + limits + lab + ["--"] + [a.format(py=os.path.join(clients, "venv", "bin", "python"), go=gosdk) for a in argv]
            print("retries: %s %s at %g/s" % (lib, mode, rate), file=sys.stderr)
            log = os.path.join(tmp, "%s-%s-%g.log" % (lib, mode, rate))
            with open(log, "w") as lf:
                p = subprocess.run(cmd, cwd=CLIENTS, env=penv, stdout=subprocess.PIPE, stderr=lf, text=True)
            row = {"library": lib, "mode": mode, "offered_per_s": rate, "limit_per_s": args.limit_rate if limited else None,
                   "policy": pol["text"], "policy_attempts": pol["attempts"], "adaptive": bool(pol.get("adaptive")), "log": log}
            try:
                e = json.loads(p.stdout)["explain"]
                ct = json.loads(open(times).read().splitlines()[-1])
            except (ValueError, OSError, IndexError, KeyError) as err:
                row["error"] = "no result (%s): see %s" % (err, log)
                rows.append(row)
                continue
            f = finding(e, "explain-throttled")
            ev = f["evidence"] if f else {}
            gaps, most = retry_gaps(e)
            n = ct["objects"]
            row.update({
                "exit_code": e["exit_code"],
                "goodput_per_s": (n - ct.get("failed", 0)) / ct["put_s"] if ct["put_s"] > 0 else 0,
                "p50_s": ct.get("put_p50_s"), "p99_s": ct.get("put_p99_s"),
                "requests_per_object": e["requests"] / n,
                "throttled": int(ev.get("throttled", 0)), "backoff_s": ev.get("backoff_s", 0.0),
                "give_ups": ct.get("failed", 0), "explain_give_ups": int(ev.get("gave_up", 0)),
                "max_attempts": most,
                "retries": {str(i): {"n": len(g), "mean_s": sum(g) / len(g), "min_s": min(g), "max_s": max(g),
                                     "bounds_s": list(pol["bounds"](i))} for i, g in sorted(gaps.items())},
            })
            rows.append(row)
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
        return
    print_table(rows, args.limit_rate if limited else None)
    if any("error" in r for r in rows):
        sys.exit(1)


def print_table(rows, limit):
    head = "limit: %g writes/s per prefix (S3), bucket (GCS), account (Azure); uploads of 1 KiB at 20 ms" % limit if limit else \
        "no --limit in this objbench: 30% of requests answered 503/429 at random"
    print(head)
    table = [["library", "mode", "offered/s", "goodput/s", "p99 s", "req/obj", "backoff s", "give-ups", "retry 1 s", "retry 2 s"]]
    for r in rows:
        if "error" in r:
            table.append([r["library"], r["mode"], "%g" % r["offered_per_s"], r["error"]])
            continue

        def gap(i):
            g = r["retries"].get(str(i))
            return "%.2f/%.2f" % (g["mean_s"], g["max_s"]) if g else "-"

        table.append([r["library"], r["mode"], "%g" % r["offered_per_s"], "%.1f" % r["goodput_per_s"], "%.2f" % (r["p99_s"] or 0),
                      "%.2f" % r["requests_per_object"], "%.1f" % r["backoff_s"], "%d" % r["give_ups"], gap(1), gap(2)])
    widths = [max(len(row[i]) for row in table if i < len(row)) for i in range(len(table[0]))]
    for row in table:
        cells = [c.ljust(widths[i]) if i < 2 else c.rjust(widths[i]) for i, c in enumerate(row[:len(widths)])]
        print("  ".join(cells).rstrip())
    print("(retry N s: the gaps before each object's Nth retry, mean/max)")
    print()
    print("documented policy (throttled answers):")
    seen = set()
    for r in rows:
        k = (r["library"], r["mode"])
        if k not in seen:
            seen.add(k)
            print("  %s %s: %s" % (r["library"], r["mode"], r["policy"]))


if __name__ == "__main__":
    main()
