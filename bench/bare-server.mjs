// Baseline for the HTTP benchmarks: bare Fastify, one JSON route shaped like GET /v1/profiles, and for
// the media benchmark two upload sinks (one that drops the body, one that streams it to a file).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';

const app = Fastify({ logger: false, bodyLimit: 8 * 1024 ** 3 });
const body = {
  profiles: [
    {
      _id: '6745f1c2a9e0b3d4c5f60718',
      id: '6745f1c2a9e0b3d4c5f60718',
      name: 'Main',
      description: '',
      color: '#ffeda0',
      isDefault: true,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  ],
};
app.get('/v1/profiles', async () => body);
app.post('/v1/posts', async (_req, reply) => reply.status(201).send({ message: 'ok', post: body.profiles[0] }));

// Upload bodies reach the handlers as streams, unparsed.
app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
app.put('/upload/discard', async (req) => {
  for await (const _chunk of req.body); // eslint-disable-line no-unused-vars
  return { ok: true };
});
const uploadDir = process.env.UPLOAD_DIR ?? os.tmpdir();
// The caller deletes the file between uploads, outside its timing, as the media bench does for Herald's.
// The same write buffer as Herald's local storage (4 MB), so the two differ only in what Herald adds.
app.put('/upload/file', async (req) => {
  await pipeline(
    req.body,
    fs.createWriteStream(path.join(uploadDir, 'bare-upload.part'), { highWaterMark: 4 * 1024 * 1024 }),
  );
  return { ok: true };
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
