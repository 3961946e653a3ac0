// @aws-sdk/client-s3: HeadObjectCommand to check each object, then
// GetObjectCommand to read it.
const { S3Client, PutObjectCommand, HeadObjectCommand, GetObjectCommand } = require("@aws-sdk/client-s3");

const s3 = new S3Client({});
const keys = Array.from({ length: 12 }, (_, i) => `corpus-node/head-get/${process.pid}/obj-${i}`);

async function main() {
  await Promise.all(keys.map((Key) => s3.send(new PutObjectCommand({ Bucket: "objbench", Key, Body: "h".repeat(1024) }))));
  for (const Key of keys) {
    const head = await s3.send(new HeadObjectCommand({ Bucket: "objbench", Key }));
    if (head.ContentLength > 0) {
      const out = await s3.send(new GetObjectCommand({ Bucket: "objbench", Key }));
      await out.Body.transformToString();
    }
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
