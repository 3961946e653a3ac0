// @aws-sdk/client-s3 (v3), reused: one client for every object.
//
// Uploads N objects of SIZE bytes, then downloads them, through one
// S3Client created once, as the SDK's documentation recommends: its agent
// keeps the connection alive between requests.
//
//   node reused.cjs [N] [SIZE]      # or OBJBENCH_OBJECTS, OBJBENCH_SIZE
//
// The SDK comes from NODE_PATH (../README.md: scripts/clients installs it).
const { S3Client, PutObjectCommand, GetObjectCommand, CreateBucketCommand } = require("@aws-sdk/client-s3");
const task = require("./task.cjs");

const VARIANT = "node-s3 reused";

async function main() {
  const { n, size, bucket, keys, download } = task.settings("node-s3-reused");
  const body = task.randomBody(size);
  const s3 = new S3Client({}); // once: its agent keeps the connection alive

  let start = performance.now();
  for (const key of keys) {
    await task.put(s3, bucket, key, body, PutObjectCommand, CreateBucketCommand);
  }
  const putS = (performance.now() - start) / 1000;

  start = performance.now();
  if (download) {
    for (const key of keys) {
      await task.get(s3, bucket, key, size, GetObjectCommand);
    }
  }
  const getS = download ? (performance.now() - start) / 1000 : 0;
  s3.destroy();
  task.report(VARIANT, n, size, putS, getS);
}

main().catch((err) => {
  console.error(`${VARIANT}: ${err.message}`);
  process.exit(1);
});
