import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/*
 * Tool results. An error is the API's own envelope {error, code, details}, as text and as structured
 * content, with isError set: an assistant reads the same codes a program reads from the HTTP API.
 */

/** The API's answer to a refused request as a tool error (any body that is not an envelope is wrapped in one). */
export function toolError(status: number, body: unknown): CallToolResult {
  const envelope =
    body && typeof body === 'object' && 'code' in body && 'error' in body
      ? (body as Record<string, unknown>)
      : { error: `The API answered ${status}`, code: 'upstream_error', details: { status } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
}

/** A refusal of the tool's own (bad arguments, unknown tool), in the same envelope and with a 400's meaning. */
export function envelopeError(code: string, error: string, details: Record<string, unknown> = {}): CallToolResult {
  return toolError(400, { error, code, details });
}

/** Bad arguments, naming each field as the API's validation does (`details.fields`). */
export function invalidArguments(error: string, fields: Record<string, string[]>): CallToolResult {
  return envelopeError('invalid_arguments', error, { fields });
}

export function success(body: unknown): CallToolResult {
  const structured =
    body && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : { result: body ?? null };
  return { content: [{ type: 'text', text: JSON.stringify(body ?? null) }], structuredContent: structured };
}
