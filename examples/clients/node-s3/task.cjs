// The task every node-s3 variant does, apart from how it uses the client:
// its settings, the upload (creating a missing bucket) and the checked
// download, and the report. Same arguments and environment as the Python
// programs (../README.md).
const crypto = require("node:crypto");
const fs = require("node:fs");

const UNITS = { KiB: 1 << 10, MiB: 1 << 20, KB: 1000, MB: 1000 * 1000, B: 1 };

function parseSize(s) {
  for (const [u, m] of Object.entries(UNITS)) {
    if (s.endsWith(u)) return Math.floor(Number(s.slice(0, -u.length)) * m);
  }
  return Number(s);
}

// settings: N, SIZE, the bucket, the keys under a prefix of their own, and whether to download.
function settings(name) {
  const args = process.argv.slice(2);
  const n = Number(args[0] || process.env.OBJBENCH_OBJECTS || 20);
  const size = parseSize(args[1] || process.env.OBJBENCH_SIZE || "1KiB");
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(size) || size < 0) {
    throw new Error(`N and SIZE must be whole numbers, got ${args.join(" ")}`);
  }
  const bucket = process.env.OBJBENCH_BUCKET || "objbench";
  const prefix = process.env.OBJBENCH_PREFIX || `clients/${name}/${process.pid}-${Date.now()}`;
  const keys = Array.from({ length: n }, (_, i) => `${prefix}/obj-${String(i).padStart(5, "0")}`);
  return { n, size, bucket, keys, download: (process.env.OBJBENCH_OPS || "put,get") !== "put" };
}

function randomBody(size) {
  return crypto.randomBytes(size);
}

// put: PutObject, creating the bucket first if it is missing.
async function put(s3, bucket, key, body, PutObjectCommand, CreateBucketCommand) {
  try {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  } catch (err) {
    if (err.name !== "NoSuchBucket") throw err;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  }
}

async function get(s3, bucket, key, size, GetObjectCommand) {
  const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const got = await out.Body.transformToByteArray();
  if (got.length !== size) throw new Error(`${key}: got ${got.length} bytes, want ${size}`);
}

// OBJBENCH_RATE: objects started per second (open loop: object i is due
// i/RATE s after the first, its time counted from then); 0, as fast as the
// variant goes. OBJBENCH_KEEP_GOING: a failed object is counted, not fatal.
const rate = Number(process.env.OBJBENCH_RATE || 0);
const keepGoing = !["", "0"].includes(process.env.OBJBENCH_KEEP_GOING || "");
let failed = 0;

// paced wraps fn(key) for object i: started no sooner than it is due, its
// time from then appended to times, its failure counted with KEEP_GOING.
function paced(fn, times) {
  const start = performance.now();
  return async (i, key) => {
    let due = performance.now();
    if (rate > 0) {
      due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    try {
      await fn(key);
    } catch (err) {
      if (!keepGoing) throw err;
      failed++;
      return;
    }
    if (times) times.push((performance.now() - due) / 1000);
  };
}

// report: one line on stdout; a JSON line appended to $OBJBENCH_CLIENT_TIMES
// (with the uploads' median and p99 when putTimes has them).
function report(variant, n, size, putS, getS, putTimes) {
  console.log(`${variant}: ${n} objects of ${size} B: upload ${putS.toFixed(3)} s, download ${getS.toFixed(3)} s` +
    (failed ? `, ${failed} failed` : ""));
  if (process.env.OBJBENCH_CLIENT_TIMES) {
    const line = { program: variant, objects: n, size, put_s: putS, get_s: getS, failed };
    if (putTimes && putTimes.length) {
      const t = [...putTimes].sort((a, b) => a - b);
      line.put_p50_s = t[Math.floor(t.length / 2)];
      line.put_p99_s = t[Math.min(t.length - 1, Math.floor(0.99 * t.length))];
    }
    fs.appendFileSync(process.env.OBJBENCH_CLIENT_TIMES, JSON.stringify(line) + "\n");
  }
}

module.exports = { settings, randomBody, put, get, report, paced };
