import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FormPart } from '../twitter/multipart.js';

/*
 * The S3 browser-form upload Pinterest hands out with POST /v5/media (`upload_url` + `upload_parameters`):
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTForms.html. Every parameter must come
 * back unchanged, the file is the last field of the form (S3 ignores fields after it), and the policy's
 * signature, expiry, key and `content-length-range` are enforced. Errors are S3's XML.
 */

const UPLOAD_BUCKET = 'pinterest-media-upload';
/** Pinterest video limit: 2 GB (https://help.pinterest.com/en/business/article/video-pins). */
const MAX_BYTES = 2 * 1024 ** 3;
const SECRET = randomBytes(32);

/** The form fields of one upload, signed for an hour. */
export function uploadParameters(mediaId: string, ownerId: string, now: Date): Record<string, string> {
  const key = `uploads/${ownerId.slice(-2)}/${mediaId.slice(-2)}/${ownerId}:video:${mediaId}`;
  const date = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const credential = `ASIASANDBOXPINTEREST/${date.slice(0, 8)}/us-east-1/s3/aws4_request`;
  const policy = Buffer.from(
    JSON.stringify({
      expiration: new Date(now.getTime() + 3_600_000).toISOString(),
      conditions: [
        { bucket: UPLOAD_BUCKET },
        { key },
        ['content-length-range', 1, MAX_BYTES],
        { 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
        { 'x-amz-credential': credential },
        { 'x-amz-date': date },
      ],
    }),
  ).toString('base64');
  return {
    'Content-Type': 'multipart/form-data',
    key,
    policy,
    'x-amz-algorithm': 'AWS4-HMAC-SHA256',
    'x-amz-credential': credential,
    'x-amz-date': date,
    'x-amz-security-token': randomBytes(24).toString('base64'),
    'x-amz-signature': createHmac('sha256', SECRET).update(policy).digest('hex'),
  };
}

export function s3Error(reply: FastifyReply, status: number, code: string, message: string) {
  const body =
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>` +
    `<RequestId>${randomBytes(8).toString('hex').toUpperCase()}</RequestId></Error>`;
  return reply.status(status).header('content-type', 'application/xml').send(body);
}

/** Checks a form post against the fields issued for it. Null when it is good, else S3's [status, code, message]. */
export function checkFormUpload(
  parts: FormPart[],
  issued: Record<string, string>,
  now: Date,
): [number, string, string] | null {
  const fileAt = parts.findIndex((p) => p.name === 'file');
  if (fileAt < 0) return [400, 'InvalidArgument', 'POST requires exactly one file upload per request.'];
  // Fields after the file are not read by S3.
  const fields = new Map(parts.slice(0, fileAt).map((p) => [p.name.toLowerCase(), p.data.toString('utf8')]));
  if (!fields.has('key'))
    return [
      400,
      'InvalidArgument',
      "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.",
    ];
  if (!fields.has('policy') || !fields.has('x-amz-signature')) return [403, 'AccessDenied', 'Access Denied'];
  const signature = createHmac('sha256', SECRET).update(fields.get('policy')!).digest('hex');
  if (fields.get('x-amz-signature') !== signature) {
    return [
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    ];
  }
  const policy = JSON.parse(Buffer.from(fields.get('policy')!, 'base64').toString('utf8')) as { expiration: string };
  if (Date.parse(policy.expiration) <= now.getTime())
    return [403, 'AccessDenied', 'Invalid according to Policy: Policy expired.'];
  for (const [name, value] of Object.entries(issued)) {
    if (fields.get(name.toLowerCase()) !== value)
      return [
        403,
        'AccessDenied',
        `Invalid according to Policy: Policy Condition failed: ["eq", "$${name}", "${value}"]`,
      ];
  }
  const size = parts[fileAt].data.length;
  if (size > MAX_BYTES) return [400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size'];
  if (size < 1) return [400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size'];
  return null;
}
