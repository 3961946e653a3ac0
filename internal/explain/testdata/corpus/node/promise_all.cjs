// @aws-sdk/client-s3: one S3Client, every upload at once with
// Promise.all, then every download (the SDK's documented concurrency).
const { S3Client, PutObjectCommand, GetObjectCommand } = require("@aws-sdk/client-s3");

const s3 = new S3Client({});
const keys = Array.from({ length: 24 }, (_, i) => `corpus-node/promise-all/${process.pid}/obj-${i}`);

async function main() {
  await Promise.all(keys.map((Key) => s3.send(new PutObjectCommand({ Bucket: "objbench", Key, Body: "n".repeat(1024) }))));
  await Promise.all(keys.map(async (Key) => {
    const out = await s3.send(new GetObjectCommand({ Bucket: "objbench", Key }));
    await out.Body.transformToString();
  }));
}

main().catch((err) => { console.error(err); process.exit(1); });
