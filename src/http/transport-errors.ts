import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorBody } from './errors.js';

/**
 * Errors raised before a request reaches a route: Node's HTTP parser (framing, header size, timeouts),
 * Fastify's router (bad percent-encoding, over-long path parameters) and `Expect` headers. Each answers
 * in the same envelope as every other error, and none echoes the URL back.
 */

/** Fastify router errors (`frameworkErrors`): a request object exists, so X-Request-Id is set. */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let status = 400;
  let body: ErrorBody;
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    status = 414;
    body = { error: 'A path segment of the URL is too long', code: 'uri_too_long', details: {} };
  } else if (error.code === 'FST_ERR_BAD_URL') {
    body = { error: 'The URL path is not valid (malformed percent-encoding)', code: 'bad_url', details: {} };
  } else {
    status = 500;
    body = { error: 'Internal server error', code: 'internal_error', details: {} };
    request.log.error({ err: error, reqId: request.id }, 'request failed before routing');
  }
  void reply.status(status).header('X-Request-Id', request.id).type('application/json; charset=utf-8').send(body);
}

/** What Node's HTTP parser refused, by error code: status, stable code and sentence. */
function describeClientError(code: string | undefined): { status: number; body: ErrorBody } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      status: 408,
      body: { error: 'The request took too long to arrive', code: 'request_timeout', details: {} },
    };
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      body: {
        error: 'The request line and headers are too large (16 KB at most)',
        code: 'headers_too_large',
        details: {},
      },
    };
  }
  if (code === 'HPE_INVALID_CONTENT_LENGTH' || code === 'HPE_UNEXPECTED_CONTENT_LENGTH') {
    return {
      status: 400,
      body: { error: 'The Content-Length header is not valid', code: 'invalid_content_length', details: {} },
    };
  }
  if (code === 'HPE_INVALID_TRANSFER_ENCODING' || code === 'HPE_INVALID_CHUNK_SIZE') {
    return {
      status: 400,
      body: {
        error: 'The Transfer-Encoding or chunked body is not valid',
        code: 'invalid_transfer_encoding',
        details: {},
      },
    };
  }
  return { status: 400, body: { error: 'The HTTP request is malformed', code: 'malformed_request', details: {} } };
}

/** Node's `clientError`: no request object exists; the answer is written on the socket, then it closes. */
export function clientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, body } = describeClientError(err.code);
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy();
}

/**
 * Node answers an `Expect` header other than `100-continue` with an empty 417 unless the server
 * handles `checkExpectation`; this gives it the envelope.
 */
export function expectationFailed(_req: http.IncomingMessage, res: http.ServerResponse): void {
  const text = JSON.stringify({
    error: 'Only "Expect: 100-continue" is supported',
    code: 'expectation_failed',
    details: {},
  } satisfies ErrorBody);
  res.writeHead(417, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    Connection: 'close',
  });
  res.end(text);
}
