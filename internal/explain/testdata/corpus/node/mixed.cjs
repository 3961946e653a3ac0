// @aws-sdk/client-s3, patterns mixed: a shared client uploads a batch with
// Promise.all, then a loop of small uploads on it; then a few reads, each
// through a client a request handler makes for itself.
const { S3Client, PutObjectCommand, GetObjectCommand } = require("@aws-sdk/client-s3");

const s3 = new S3Client({});
const prefix = `corpus-node/mixed/${process.pid}`;

async function handler(Key) {
  const client = new S3Client({});
  const out = await client.send(new GetObjectCommand({ Bucket: "objbench", Key }));
  return out.Body.transformToString();
}

async function main() {
  await Promise.all(Array.from({ length: 16 }, (_, i) =>
    s3.send(new PutObjectCommand({ Bucket: "objbench", Key: `${prefix}/batch-${i}`, Body: "m".repeat(4096) }))));
  for (let i = 0; i < 8; i++) {
    await s3.send(new PutObjectCommand({ Bucket: "objbench", Key: `${prefix}/small-${i}`, Body: "s".repeat(512) }));
  }
  for (let i = 0; i < 3; i++) {
    await handler(`${prefix}/batch-${i}`);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
