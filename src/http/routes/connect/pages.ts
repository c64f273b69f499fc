import type { FastifyReply } from 'fastify';
import type { PageChoice } from '../../../domain/connect/oauth.js';

/*
 * The few pages a browser sees during a standard-mode connection: "connected" and the destination
 * choice. No script runs on them (the policy forbids it); the choice is a plain form whose only
 * credential is the connection's temp token.
 */

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function layout(title: string, body: string): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)}</title></head>` +
    `<body style="font-family:system-ui;max-width:32rem;margin:4rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

export function sendPage(reply: FastifyReply, html: string) {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', POLICY)
    .header('x-frame-options', 'DENY')
    .send(html);
}

export const messagePage = (title: string, text: string) => layout(title, `<p>${escapeHtml(text)}</p>`);

/** The destinations as radio buttons (the first checked), posted to `choose` beside the callback. */
export function choosePage(choice: PageChoice): string {
  const options = choice.destinations
    .map((d, i) => {
      const picture =
        d.picture && /^https:\/\//.test(d.picture)
          ? `<img src="${escapeHtml(d.picture)}" alt="" width="32" height="32" style="border-radius:4px">`
          : '';
      const handle = d.username ? ` <small style="color:#666">@${escapeHtml(d.username)}</small>` : '';
      return (
        `<label style="display:flex;gap:.75rem;align-items:center;padding:.5rem;border:1px solid #ddd;border-radius:6px;margin:.5rem 0">` +
        `<input type="radio" name="destinationId" value="${escapeHtml(d.id)}"${i === 0 ? ' checked' : ''}>${picture}<span>${escapeHtml(d.name)}${handle}</span></label>`
      );
    })
    .join('');
  return layout(
    `Choose a ${choice.name} ${choice.kind}`,
    `<p>Herald will post to the ${escapeHtml(choice.kind)} you choose. You can change it later.</p>` +
      `<form method="post" action="choose"><input type="hidden" name="tempToken" value="${escapeHtml(choice.tempToken)}">${options}` +
      `<button type="submit" style="margin-top:1rem;padding:.5rem 1.5rem">Connect</button></form>`,
  );
}
