// @aws-sdk/client-s3 (v3), naive: a new client for every object.
//
// Uploads N objects of SIZE bytes, then downloads them, creating an
// S3Client inside the loop as many snippets do. Each client has its own
// connection pool (agent), so every object pays a new TCP connection and
// TLS handshake.
//
//   node naive.cjs [N] [SIZE]       # or OBJBENCH_OBJECTS, OBJBENCH_SIZE
//
// The SDK comes from NODE_PATH (../README.md: scripts/clients installs it).
const { S3Client, PutObjectCommand, GetObjectCommand, CreateBucketCommand } = require("@aws-sdk/client-s3");
const task = require("./task.cjs");

const VARIANT = "node-s3 naive";

async function main() {
  const { n, size, bucket, keys, download } = task.settings("node-s3-naive");
  const body = task.randomBody(size);

  let start = performance.now();
  for (const key of keys) {
    const s3 = new S3Client({}); // the naive part: a new client, so a new connection, per object
    await task.put(s3, bucket, key, body, PutObjectCommand, CreateBucketCommand);
    s3.destroy();
  }
  const putS = (performance.now() - start) / 1000;

  start = performance.now();
  if (download) {
    for (const key of keys) {
      const s3 = new S3Client({});
      await task.get(s3, bucket, key, size, GetObjectCommand);
      s3.destroy();
    }
  }
  const getS = download ? (performance.now() - start) / 1000 : 0;
  task.report(VARIANT, n, size, putS, getS);
}

main().catch((err) => {
  console.error(`${VARIANT}: ${err.message}`);
  process.exit(1);
});
