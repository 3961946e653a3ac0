// @aws-sdk/client-s3: a loop that loads its settings objects from the
// bucket each time it needs them (no cache): 3 objects read 4 times each.
const { S3Client, PutObjectCommand, GetObjectCommand } = require("@aws-sdk/client-s3");

const s3 = new S3Client({});
const keys = ["a", "b", "c"].map((n) => `corpus-node/reread/${process.pid}/${n}.json`);

async function load(Key) {
  const out = await s3.send(new GetObjectCommand({ Bucket: "objbench", Key }));
  return JSON.parse(await out.Body.transformToString());
}

async function main() {
  await Promise.all(keys.map((Key) => s3.send(new PutObjectCommand({ Bucket: "objbench", Key, Body: JSON.stringify({ n: Key }) }))));
  for (let round = 0; round < 4; round++) {
    for (const Key of keys) {
      await load(Key);
    }
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
