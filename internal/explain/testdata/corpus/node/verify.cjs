// @aws-sdk/client-s3: each upload reads the object back to verify it,
// one file after another.
const { S3Client, PutObjectCommand, GetObjectCommand } = require("@aws-sdk/client-s3");

const s3 = new S3Client({});

async function save(Key, Body) {
  await s3.send(new PutObjectCommand({ Bucket: "objbench", Key, Body }));
  const out = await s3.send(new GetObjectCommand({ Bucket: "objbench", Key }));
  if ((await out.Body.transformToString()) !== Body) throw new Error(`${Key}: read back differs`);
}

async function main() {
  const keys = Array.from({ length: 12 }, (_, i) => `corpus-node/verify/${process.pid}/obj-${i}`);
  for (const k of keys) {
    await save(k, "v".repeat(1024));
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
