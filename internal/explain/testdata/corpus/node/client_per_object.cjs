// @aws-sdk/client-s3: an upload helper that makes its own S3Client, called
// for each file in a for...of loop.
const { S3Client, PutObjectCommand } = require("@aws-sdk/client-s3");

async function upload(Key, Body) {
  const s3 = new S3Client({});
  await s3.send(new PutObjectCommand({ Bucket: "objbench", Key, Body }));
}

async function main() {
  for (let i = 0; i < 10; i++) {
    await upload(`corpus-node/per-object/${process.pid}/obj-${i}`, "c".repeat(1024));
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
