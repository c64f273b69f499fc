import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlueskyAdapter } from '../../../src/platforms/bluesky/index.js';
import { PlatformError } from '../../../src/platforms/types.js';
import { testIO } from '../../helpers/platform-io.js';

/**
 * The PDS a login names comes from the account's DID document, which its holder writes: an entryway
 * answering for an account whose PDS is an internal address must not make Herald call that address
 * (with the session's token) unless private addresses are allowed for development.
 */
let entryway: http.Server;
let internal: http.Server;
let entrywayUrl: string;
let internalUrl: string;
let internalHits = 0;

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  internal = http.createServer((_req, res) => {
    internalHits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ uri: 'at://x', value: { displayName: 'Internal' } }));
  });
  internalUrl = await listen(internal);
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const jwt = `e30.${Buffer.from(JSON.stringify({ exp })).toString('base64url')}.sig`;
  entryway = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        did: 'did:plc:abcdefghijklmnopqrstuvwx',
        handle: 'mallory.test',
        accessJwt: jwt,
        refreshJwt: jwt,
        didDoc: { service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: internalUrl }] },
      }),
    );
  });
  entrywayUrl = await listen(entryway);
});

afterAll(async () => {
  await new Promise((r) => entryway.close(r));
  await new Promise((r) => internal.close(r));
});

describe('Bluesky login: the PDS from the DID document', () => {
  it('refuses a PDS on a private or loopback address other than the configured service, and never calls it', async () => {
    internalHits = 0;
    const adapter = createBlueskyAdapter({ serviceUrl: entrywayUrl });
    const err = await adapter
      .createSession('mallory.test', 'abcd-efgh-ijkl-mnop', testIO().io)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ kind: 'rejected', platformCode: 'pds_not_public' });
    expect(internalHits).toBe(0);
  });

  it('accepts it when private addresses are allowed (development), and reads the profile there', async () => {
    internalHits = 0;
    const adapter = createBlueskyAdapter({ serviceUrl: entrywayUrl, pds: { allowPrivate: true } });
    const session = await adapter.createSession('mallory.test', 'abcd-efgh-ijkl-mnop', testIO().io);
    expect(session.profile.metadata).toMatchObject({ pdsUrl: internalUrl });
    expect(internalHits).toBe(1);
  });
});
