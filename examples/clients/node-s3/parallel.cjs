// @aws-sdk/client-s3 (v3), parallel: one client, WORKERS requests in flight.
//
// Uploads N objects of SIZE bytes, then downloads them, WORKERS at a time
// (OBJBENCH_WORKERS, default 10) through one S3Client: Promise.all over
// WORKERS async loops that take the next key, so N objects cost about
// N/WORKERS round trips on WORKERS kept-alive connections.
//
//   node parallel.cjs [N] [SIZE]    # or OBJBENCH_OBJECTS, OBJBENCH_SIZE
//
// The SDK comes from NODE_PATH (../README.md: scripts/clients installs it).
const { S3Client, PutObjectCommand, GetObjectCommand, CreateBucketCommand } = require("@aws-sdk/client-s3");
const task = require("./task.cjs");

const VARIANT = "node-s3 parallel";

// inParallel runs fn on every key, at most workers at a time; paced, at
// most task.rate keys started per second (see task.paced).
async function inParallel(keys, workers, fn, times) {
  const run = task.paced(fn, times);
  let next = 0;
  const loop = async () => {
    while (next < keys.length) {
      const i = next++;
      await run(i, keys[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, keys.length) }, loop));
}

async function main() {
  const { n, size, bucket, keys, download } = task.settings("node-s3-parallel");
  const workers = Number(process.env.OBJBENCH_WORKERS || 10);
  const body = task.randomBody(size);
  // The SDK's agent keeps at most 50 sockets: more workers would queue
  // for one (client-side waiting that is neither the store's nor backoff).
  const s3 = new S3Client(workers > 50 ? { requestHandler: { httpAgent: { maxSockets: workers }, httpsAgent: { maxSockets: workers } } } : {});

  const putTimes = [];
  let start = performance.now();
  await inParallel(keys, workers, (key) => task.put(s3, bucket, key, body, PutObjectCommand, CreateBucketCommand), putTimes);
  const putS = (performance.now() - start) / 1000;

  start = performance.now();
  if (download) {
    await inParallel(keys, workers, (key) => task.get(s3, bucket, key, size, GetObjectCommand));
  }
  const getS = download ? (performance.now() - start) / 1000 : 0;
  s3.destroy();
  task.report(VARIANT, n, size, putS, getS, putTimes);
}

main().catch((err) => {
  console.error(`${VARIANT}: ${err.message}`);
  process.exit(1);
});
