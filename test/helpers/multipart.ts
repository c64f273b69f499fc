import { randomHex } from '../../src/lib/crypto.js';

export interface FormPart {
  name: string;
  content: string | Buffer;
  /** Present for a file part. */
  filename?: string;
  type?: string;
}

/** A multipart/form-data body and its content type, for app.inject. */
export function multipartBody(parts: FormPart[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----herald${randomHex(8)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.filename !== undefined ? `Content-Type: ${p.type ?? 'text/csv'}\r\n` : '';
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`),
      Buffer.from(p.content),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A CSV upload in the field `file`. */
export const csvForm = (csv: string | Buffer, extra: FormPart[] = []) =>
  multipartBody([{ name: 'file', filename: 'posts.csv', content: csv }, ...extra]);
