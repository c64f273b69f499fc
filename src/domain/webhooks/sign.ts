import { createHmac } from 'node:crypto';

/**
 * The two signature schemes a delivery carries when the webhook has a secret:
 * - `X-Herald-Signature` (and the same value in `X-Late-Signature` for clients of the hosted service):
 *   lowercase hex HMAC-SHA256 of the raw body, keyed with the secret;
 * - Standard Webhooks (standardwebhooks.com): `webhook-signature: v1,<base64 HMAC-SHA256 of
 *   "<webhook-id>.<webhook-timestamp>.<body>">`, so a receiver can also refuse old (replayed) requests.
 * NOTE: the Standard Webhooks key is the secret's UTF-8 bytes; a `whsec_` secret is not base64-decoded.
 */
export function signatureHeaders(
  secret: string | null,
  eventId: string,
  timestampSec: number,
  body: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSec),
  };
  if (secret === null) return headers;
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  const standard = createHmac('sha256', secret).update(`${eventId}.${timestampSec}.${body}`).digest('base64');
  headers['x-herald-signature'] = hex;
  headers['x-late-signature'] = hex;
  headers['webhook-signature'] = `v1,${standard}`;
  return headers;
}
