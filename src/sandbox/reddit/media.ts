import { createHash, randomBytes } from 'node:crypto';
import type { LimitRule } from '../rate-limits.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formBody, type OAuthSim } from '../oauth.js';
import { parseMultipart } from '../twitter/multipart.js';
import { hangUp, type SimulatorState } from '../types.js';
import { assetId, rdStore, type RdAsset } from './store.js';
import { apiUser, httpError, JSON_TYPE, serverBusy } from './wire.js';

/*
 * Reddit's media upload, as the recorded `test_submit_image` and `test_submit_gallery` traffic shows it:
 * 1. `POST /api/media/asset.json` (form `filepath`, `mimetype`) leases an upload:
 *    `{args: {action: "//<bucket host>", fields: [{name, value}]}, asset: {asset_id, processing_state,
 *    payload: {filepath}, websocket_url}}`;
 * 2. a multipart POST to `https:<action>` with every leased field, then `file`, answers 201
 *    `application/xml` `<PostResponse><Location/><Bucket/><Key/><ETag/></PostResponse>`;
 * 3. the Location is the `url` of an image or video submission; the asset id is a gallery item's `media_id`.
 */

const MIME_EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
};

/** Reddit's upload caps: 20 MB images, 1 GB videos (https://support.reddithelp.com/hc/en-us/articles/360043033952). */
const MAX_IMAGE = 20 * 1024 * 1024;
const MAX_VIDEO = 1024 * 1024 * 1024;

/** S3's own error document (an S3 POST policy refusal is a 403 `AccessDenied`). */
function s3Error(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply
    .status(status)
    .type('application/xml')
    .send(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${randomBytes(8).toString('hex').toUpperCase()}</RequestId></Error>`,
    );
}

export function registerRedditMedia(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  limit: LimitRule,
  now: () => Date,
): void {
  const bucketPath = '/s3';

  const lease = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = apiUser(state, oauth, request, reply, limit, now().getTime());
    if (!user) return reply;
    const body = formBody(request);
    const ext = MIME_EXT[body.mimetype ?? ''];
    if (!body.filepath || !body.mimetype)
      return httpError(reply, 400, {
        fields: ['filepath', 'mimetype'],
        explanation: 'filepath and mimetype are required',
      });
    if (!ext)
      return httpError(reply, 400, { fields: ['mimetype'], explanation: `unsupported mimetype ${body.mimetype}` });
    const fault = state.faults.take('upload');
    if (fault === 'rate_limited') {
      reply.header('x-ratelimit-remaining', '0').header('x-ratelimit-reset', '60');
      return httpError(reply, 429);
    }
    if (fault === 'unavailable') return serverBusy(reply);
    if (fault === 'auth') return httpError(reply, 401);
    if (fault === 'rejected')
      return httpError(reply, 400, { fields: ['mimetype'], explanation: 'this file type is not allowed here' });
    const id = assetId();
    rdStore(state).assets.set(id, {
      id,
      owner: user.id,
      filepath: body.filepath,
      mimetype: body.mimetype,
      uploaded: null,
    });
    if (fault === 'ambiguous') return hangUp(reply);
    const date = now().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
    const host = new URL(state.baseUrl()).host;
    const fields: [string, string][] = [
      ['x-amz-algorithm', 'AWS4-HMAC-SHA256'],
      ['key', id],
      ['x-amz-storage-class', 'STANDARD'],
      ['success_action_status', '201'],
      ['bucket', 'reddit-uploaded-media'],
      ['acl', 'private'],
      ['x-amz-signature', createHash('sha256').update(id).digest('hex')],
      ['x-amz-security-token', randomBytes(48).toString('base64')],
      ['x-amz-date', date],
      ['x-amz-meta-ext', ext],
      [
        'policy',
        Buffer.from(JSON.stringify({ conditions: [{ bucket: 'reddit-uploaded-media' }, { key: id }] })).toString(
          'base64',
        ),
      ],
      ['x-amz-credential', `ASIASANDBOX${id.slice(0, 6).toUpperCase()}/${date.slice(0, 8)}/us-east-1/s3/aws4_request`],
      ['Content-Type', body.mimetype],
    ];
    return reply.type(JSON_TYPE).send({
      // Scheme-relative, as Reddit sends it: the client prefixes the scheme.
      args: {
        action: `//${host}${new URL(state.baseUrl()).pathname}${bucketPath}`,
        fields: fields.map(([name, value]) => ({ name, value })),
      },
      asset: {
        asset_id: id,
        processing_state: 'incomplete',
        payload: { filepath: body.filepath },
        websocket_url: `wss://${host}/ws/${id}?m=${randomBytes(12).toString('base64url')}`,
      },
    });
  };
  app.post('/api/media/asset.json', lease);

  app.post(bucketPath, async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : null;
    const parts = raw ? parseMultipart(raw, String(request.headers['content-type'] ?? '')) : null;
    if (!parts)
      return s3Error(
        reply,
        400,
        'MalformedPOSTRequest',
        'The body of your POST request is not well-formed multipart/form-data.',
      );
    const field = (name: string) =>
      parts.find((p) => p.name.toLowerCase() === name.toLowerCase() && p.filename === null)?.data.toString('utf8');
    const asset = rdStore(state).assets.get(field('key') ?? '');
    if (!asset)
      return s3Error(
        reply,
        403,
        'AccessDenied',
        'Invalid according to Policy: Policy Condition failed: ["eq", "$key", ...]',
      );
    const file = parts.find((p) => p.name === 'file');
    // S3 ignores every field after `file`, so the policy's fields must come before it.
    if (!file || parts[parts.length - 1] !== file)
      return s3Error(
        reply,
        400,
        'InvalidArgument',
        'POST requires exactly one file upload per request, as the last field.',
      );
    for (const name of [
      'x-amz-algorithm',
      'x-amz-credential',
      'x-amz-date',
      'x-amz-signature',
      'policy',
      'acl',
      'success_action_status',
      'Content-Type',
    ]) {
      if (!field(name))
        return s3Error(
          reply,
          403,
          'AccessDenied',
          `Invalid according to Policy: Policy Condition failed: missing ${name}`,
        );
    }
    if (field('Content-Type') !== asset.mimetype)
      return s3Error(
        reply,
        403,
        'AccessDenied',
        'Invalid according to Policy: Policy Condition failed: ["eq", "$Content-Type", ...]',
      );
    const max = asset.mimetype.startsWith('video/') ? MAX_VIDEO : MAX_IMAGE;
    if (file.data.length === 0 || file.data.length > max)
      return s3Error(reply, 400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
    asset.uploaded = { size: file.data.length, contentType: asset.mimetype };
    const etag = `"${createHash('md5').update(file.data).digest('hex')}"`;
    const location = `${state.baseUrl()}${bucketPath}/${asset.id}`;
    return reply
      .status(201)
      .header('location', location)
      .header('etag', etag)
      .type('application/xml')
      .send(
        `<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse><Location>${location}</Location><Bucket>reddit-uploaded-media</Bucket><Key>${asset.id}</Key><ETag>${etag}</ETag></PostResponse>`,
      );
  });
}

/** The asset a submission `url` names (the Location of its upload), or null. */
export function assetOfUrl(state: SimulatorState, url: string): RdAsset | null {
  const prefix = `${state.baseUrl()}/s3/`;
  if (!url.startsWith(prefix)) return null;
  return rdStore(state).assets.get(decodeURIComponent(url.slice(prefix.length))) ?? null;
}
