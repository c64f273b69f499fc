import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Secp256k1Keypair } from '@atproto/crypto';
import * as pds from '@atproto/pds';
import { Database as PlcDatabase, PlcServer } from '@did-plc/server';

/**
 * A real Bluesky PDS (`@atproto/pds`) with an in-memory PLC directory, both on ephemeral loopback ports.
 * Accounts are created without invites; `createAppPassword` gives the xxxx-xxxx-xxxx-xxxx password a
 * user would paste into Herald. Nothing leaves the machine (the app view is a non-resolving host).
 */
export interface TestPds {
  /** Base URL of the PDS, e.g. http://localhost:41234 (what BLUESKY_SERVICE_URL would be). */
  url: string;
  plcUrl: string;
  server: pds.PDS;
  /** Creates an account and returns its handle, DID, main password and a fresh app password. */
  createAccount(name?: string): Promise<PdsAccount>;
  /** Another app password for the account; `privileged` ones reach direct messages. */
  createAppPassword(account: PdsAccount, name?: string, privileged?: boolean): Promise<string>;
  /** An access JWT for the same session that expired an hour ago (signed with the PDS's own secret). */
  expiredAccessJwt(accessJwt: string): string;
  /** Unauthenticated XRPC GET (com.atproto.repo.getRecord, listRecords...). */
  get(nsid: string, params: Record<string, string>): Promise<any>;
  /** Authenticated XRPC POST as the account's main session. */
  post(account: PdsAccount, nsid: string, body: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export interface PdsAccount {
  handle: string;
  did: string;
  password: string;
  appPassword: string;
  accessJwt: string;
  refreshJwt: string;
}

const JWT_SECRET = 'herald-test-jwt-secret';

/** `appView`: the app view the PDS forwards app.bsky.* to (by default a host that does not resolve). */
export async function startTestPds(opts: { appView?: { url: string; did: string } } = {}): Promise<TestPds> {
  const plc = PlcServer.create({ db: PlcDatabase.mock(), port: 0 });
  const plcServer = await plc.start();
  const plcUrl = `http://localhost:${(plcServer.address() as AddressInfo).port}`;

  // The PDS needs its port before it starts (its public URL and DID documents carry it): take a free one.
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-pds-'));
  const dataDirectory = path.join(root, 'data');
  fs.mkdirSync(dataDirectory, { recursive: true });
  const rotationKey = await Secp256k1Keypair.create({ exportable: true });
  const env: pds.ServerEnvironment = {
    devMode: true,
    port,
    hostname: 'localhost',
    dataDirectory,
    blobstoreDiskLocation: path.join(root, 'blobs'),
    blobstoreDiskTmpLocation: path.join(root, 'blobs-tmp'),
    recoveryDidKey: (await Secp256k1Keypair.create()).did(),
    adminPassword: 'admin-pass',
    jwtSecret: JWT_SECRET,
    serviceHandleDomains: ['.test'],
    didPlcUrl: plcUrl,
    bskyAppViewUrl: opts.appView?.url ?? 'https://appview.invalid',
    bskyAppViewDid: opts.appView?.did ?? 'did:example:invalid',
    bskyAppViewCdnUrlPattern: 'http://cdn.appview.invalid/%s/%s/%s',
    plcRotationKeyK256PrivateKeyHex: Buffer.from(await rotationKey.export()).toString('hex'),
    inviteRequired: false,
    disableSsrfProtection: true,
    rateLimitsEnabled: false,
    serviceName: 'Herald test PDS',
    crawlers: [],
  };
  const server = await pds.PDS.create(pds.envToCfg(env), pds.envToSecrets(env));
  await server.start();

  const xrpc = async (
    method: 'GET' | 'POST',
    nsid: string,
    opts: { params?: Record<string, string>; body?: unknown; token?: string } = {},
  ) => {
    const qs = opts.params ? `?${new URLSearchParams(opts.params)}` : '';
    const res = await fetch(`${url}/xrpc/${nsid}${qs}`, {
      method,
      headers: {
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  const testPds: TestPds = {
    url,
    plcUrl,
    server,
    async createAccount(name = `u${randomBytes(4).toString('hex')}`) {
      const handle = `${name}.test`;
      const password = `main-${randomBytes(6).toString('hex')}`;
      const created = await xrpc('POST', 'com.atproto.server.createAccount', {
        body: { handle, email: `${name}@example.test`, password },
      });
      if (created.status !== 200) throw new Error(`createAccount: ${created.status} ${JSON.stringify(created.body)}`);
      const account: PdsAccount = {
        handle,
        did: created.body.did,
        password,
        appPassword: '',
        accessJwt: created.body.accessJwt,
        refreshJwt: created.body.refreshJwt,
      };
      account.appPassword = await testPds.createAppPassword(account, 'herald');
      return account;
    },
    async createAppPassword(account, name = `p${randomBytes(3).toString('hex')}`, privileged = false) {
      const res = await xrpc('POST', 'com.atproto.server.createAppPassword', {
        body: { name, privileged },
        token: account.accessJwt,
      });
      if (res.status !== 200) throw new Error(`createAppPassword: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.password as string;
    },
    expiredAccessJwt(accessJwt) {
      const [header, payload] = accessJwt.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      const nowSec = Math.floor(Date.now() / 1000);
      const expired = Buffer.from(JSON.stringify({ ...claims, iat: nowSec - 7200, exp: nowSec - 3600 })).toString(
        'base64url',
      );
      const signature = createHmac('sha256', Buffer.from(JWT_SECRET))
        .update(`${header}.${expired}`)
        .digest('base64url');
      return `${header}.${expired}.${signature}`;
    },
    async get(nsid, params) {
      const res = await xrpc('GET', nsid, { params });
      if (res.status !== 200) throw new Error(`${nsid}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    post: (account, nsid, body) => xrpc('POST', nsid, { body, token: account.accessJwt }),
    async close() {
      await server.destroy();
      await plc.destroy();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return testPds;
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
