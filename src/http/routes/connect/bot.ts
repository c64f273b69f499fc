import type { AppContext } from '../../../context.js';
import { CATALOGUE } from '../../../platforms/catalogue.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import type { App } from '../../app.js';
import connectBotChat from './connect-bot-chat.js';
import getAccessCode from './get-access-code.js';
import pollAccessCode from './poll-access-code.js';

/**
 * The connect endpoints of every platform whose accounts are chats a bot was added to (descriptor
 * `connect: 'bot'`): GET /v1/connect/{platform} hands out an access code, PATCH polls it, POST connects
 * a chat directly. Static paths: they win over /connect/:platform.
 */
export function registerBotConnectRoutes(app: App, ctx: AppContext): void {
  for (const d of CATALOGUE as readonly PlatformDescriptor[]) {
    if (d.capabilities.connect !== 'bot') continue;
    getAccessCode(app, ctx, d);
    connectBotChat(app, ctx, d);
    pollAccessCode(app, ctx, d);
  }
}
