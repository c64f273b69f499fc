import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorKind } from '../errors.js';

/** The only place that knows how domain error kinds become HTTP statuses. */
const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  limit: 403,
  not_found: 404,
  precondition_failed: 412,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  upstream: 502,
};

/** The envelope: every error answer has the three fields, `details` empty when there is nothing to add. */
export interface ErrorBody {
  error: string;
  code: string;
  details: Record<string, unknown>;
}

type AjvError = { instancePath?: string; keyword: string; message?: string; params?: Record<string, unknown> };

/** Ajv errors -> `{ field: [messages] }`, the shape the official SDK turns into a ValidationError. */
export function validationFields(errors: AjvError[], context: string | undefined): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const e of errors) {
    let field = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    if (e.keyword === 'required' && e.params?.missingProperty) {
      field = field ? `${field}.${String(e.params.missingProperty)}` : String(e.params.missingProperty);
    }
    if (e.keyword === 'additionalProperties' && e.params?.additionalProperty) {
      field = field ? `${field}.${String(e.params.additionalProperty)}` : String(e.params.additionalProperty);
    }
    if (!field) field = context ?? 'body';
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
      message = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
    }
    (fields[field] ??= []).includes(message) || fields[field].push(message);
  }
  return fields;
}

const FASTIFY_CODES: Record<string, { status: number; code: string; message?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'Unsupported Content-Type; send application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', message: 'Request body is too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'invalid_json',
    message: 'Body is empty but Content-Type is application/json',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json', message: 'Body is not valid JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'invalid_content_length',
    message: 'Content-Length does not match the body',
  },
};

export function toErrorResponse(error: unknown): { status: number; body: ErrorBody; internal: boolean } {
  const answer = describeError(error);
  return { ...answer, body: { ...answer.body, details: answer.body.details ?? {} } };
}

function describeError(error: unknown): {
  status: number;
  body: Omit<ErrorBody, 'details'> & { details?: Record<string, unknown> };
  internal: boolean;
} {
  if (error instanceof AppError) {
    return {
      status: STATUS_BY_KIND[error.kind],
      body: {
        ...error.body,
        error: error.message,
        code: error.code,
        ...(error.details ? { details: error.details } : {}),
      },
      internal: error.kind === 'internal',
    };
  }
  const fe = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fe?.validation) {
    const fields = validationFields(fe.validation, fe.validationContext);
    const first = Object.entries(fields)[0];
    return {
      status: 400,
      body: {
        error: first ? `Invalid request: ${first[0]} ${first[1][0]}` : 'Invalid request',
        code: 'validation_error',
        details: { fields },
      },
      internal: false,
    };
  }
  const known = fe?.code ? FASTIFY_CODES[fe.code] : undefined;
  if (known)
    return { status: known.status, body: { error: known.message ?? fe.message, code: known.code }, internal: false };
  if (error instanceof SyntaxError || (fe?.statusCode === 400 && /JSON/i.test(fe.message))) {
    return { status: 400, body: { error: 'Body is not valid JSON', code: 'invalid_json' }, internal: false };
  }
  const status = fe?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return {
      status,
      body: { error: fe.message || 'Bad request', code: (fe.code ?? 'bad_request').toLowerCase() },
      internal: false,
    };
  }
  return { status: 500, body: { error: 'Internal server error', code: 'internal_error' }, internal: true };
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, internal } = toErrorResponse(error);
    if (internal) {
      // Internals go to the log with the request id, never to the client.
      request.log.error({ err: error, reqId: request.id }, 'request failed');
    }
    void reply.status(status).type('application/json; charset=utf-8').send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    // NOTE: the path is named, cut short: an answer never echoes a whole (possibly huge) URL.
    const path = request.url.split('?')[0];
    const shown = path.length > 200 ? `${path.slice(0, 200)}...` : path;
    void reply
      .status(404)
      .send({ error: `Route ${request.method} ${shown} not found`, code: 'route_not_found', details: {} });
  });
}
