// Baseline for the HTTP benchmarks: bare Fastify, one JSON route shaped like GET /v1/profiles.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const body = {
  profiles: [
    { _id: '6745f1c2a9e0b3d4c5f60718', id: '6745f1c2a9e0b3d4c5f60718', name: 'Main', description: '', color: '#ffeda0', isDefault: true, createdAt: '2026-01-01T00:00:00.000Z' },
  ],
};
app.get('/v1/profiles', async () => body);
app.post('/v1/posts', async (_req, reply) => reply.status(201).send({ message: 'ok', post: body.profiles[0] }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
