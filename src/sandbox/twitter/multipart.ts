/** One part of a multipart/form-data body. */
export interface FormPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  data: Buffer;
}

/** Parses a buffered multipart/form-data body (RFC 7578). Returns null when it is malformed. */
export function parseMultipart(body: Buffer, contentTypeHeader: string): FormPart[] | null {
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentTypeHeader);
  if (!match) return null;
  const boundary = Buffer.from(`--${match[1] ?? match[2].trim()}`);
  const parts: FormPart[] = [];
  let pos = body.indexOf(boundary);
  if (pos < 0) return null;
  while (true) {
    pos += boundary.length;
    // `--` after a boundary ends the body.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts;
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) return null;
    const headers = body.subarray(pos, headerEnd).toString('utf8').split('\r\n');
    const next = body.indexOf(boundary, headerEnd + 4);
    if (next < 0) return null;
    // The part's data ends with the CRLF that precedes the next boundary.
    const data = body.subarray(headerEnd + 4, next - 2);
    let name = '';
    let filename: string | null = null;
    let contentType: string | null = null;
    for (const line of headers) {
      const [key, ...rest] = line.split(':');
      const value = rest.join(':').trim();
      if (key.toLowerCase() === 'content-disposition') {
        name = /\bname="([^"]*)"/i.exec(value)?.[1] ?? '';
        filename = /\bfilename="([^"]*)"/i.exec(value)?.[1] ?? null;
      } else if (key.toLowerCase() === 'content-type') {
        contentType = value;
      }
    }
    parts.push({ name, filename, contentType, data });
    pos = next;
  }
}
