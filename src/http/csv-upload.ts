import fastifyMultipart from '@fastify/multipart';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, invalid } from '../errors.js';
import type { App } from './app.js';
import { toErrorResponse } from './errors.js';

/** Largest CSV one upload may send (5,000 rows of about 3 KB each). */
const CSV_MAX_BYTES = 16 * 1024 * 1024;

/** A refusal of the multipart layer that is not a 400 (too large, wrong content type). */
class UploadRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const LIMIT_ERRORS: Record<string, (e: FastifyError) => Error> = {
  FST_REQ_FILE_TOO_LARGE: () =>
    new UploadRefused(413, 'file_too_large', `The file is larger than ${CSV_MAX_BYTES} bytes`, {
      maxSize: CSV_MAX_BYTES,
    }),
  FST_FILES_LIMIT: () => invalid('too_many_files', 'Send one file, in the field file'),
  FST_PARTS_LIMIT: () =>
    invalid('too_many_parts', 'The form has too many parts: send the field file and optionally dryRun'),
  FST_FIELDS_LIMIT: () =>
    invalid('too_many_parts', 'The form has too many parts: send the field file and optionally dryRun'),
  FST_PROTO_VIOLATION: () => invalid('forbidden_field_name', 'A form field is named __proto__ or constructor'),
  FST_INVALID_MULTIPART_CONTENT_TYPE: () =>
    new UploadRefused(415, 'unsupported_media_type', 'Send multipart/form-data with the CSV in the field file'),
};

/**
 * Reads a multipart/form-data body holding one CSV in the field `file` (and optional text fields),
 * within limits, into `request.body` as `{file: <text>, ...fields}`; runs as the route's preValidation
 * hook, so the body schema and the Idempotency-Key fingerprint both see the file's text. The file must
 * be UTF-8 (a BOM is allowed). Malformed multipart is a 400 `invalid_multipart`.
 */
export async function readCsvUpload(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) throw invalid('file_required', 'Send the CSV as multipart/form-data in the field file');
  const body: Record<string, string> = {};
  let file: Buffer | null = null;
  try {
    const parts = request.parts({
      limits: { fileSize: CSV_MAX_BYTES, files: 1, fields: 4, fieldSize: 1024, parts: 5, headerPairs: 50 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file')
          throw invalid(
            'unexpected_file_field',
            `Send the CSV in the field file, not ${JSON.stringify(part.fieldname)}`,
          );
        file = await part.toBuffer();
      } else {
        body[part.fieldname] = String(part.value);
      }
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const known = LIMIT_ERRORS[(error as FastifyError)?.code ?? ''];
    throw known
      ? known(error as FastifyError)
      : invalid('invalid_multipart', `The multipart body cannot be read: ${(error as Error)?.message ?? 'malformed'}`);
  }
  if (!file) throw invalid('file_required', 'The form has no file: send the CSV in the field file');
  // UTF-16 (a spreadsheet's "Unicode text") would decode as text full of NULs.
  if ((file[0] === 0xff && file[1] === 0xfe) || (file[0] === 0xfe && file[1] === 0xff)) {
    throw invalid('csv_not_utf8', 'The file is UTF-16: save it as CSV in UTF-8');
  }
  try {
    body.file = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(file);
  } catch {
    throw invalid('csv_not_utf8', 'The file is not UTF-8 text: save it as CSV in UTF-8');
  }
  request.body = body;
}

/**
 * The scope of an upload route: multipart only (any other body is a 415 that says what to send) and
 * the refusals above in the error envelope.
 */
export async function csvUploadScope(scope: App): Promise<void> {
  scope.removeAllContentTypeParsers();
  await scope.register(fastifyMultipart, { throwFileSizeLimit: true });
  scope.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof UploadRefused)
      return reply.status(error.status).send({ error: error.message, code: error.code, details: error.details });
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.status(415).send({
        error: 'Send multipart/form-data with the CSV in the field file',
        code: 'unsupported_media_type',
        details: {},
      });
    }
    const { status, body, internal } = toErrorResponse(error);
    if (internal) request.log.error({ err: error, reqId: request.id }, 'upload failed');
    // The client may still be sending: close the connection rather than read the rest of a refused body.
    if (status >= 400) reply.header('Connection', 'close');
    return reply.status(status).send(body);
  });
}
