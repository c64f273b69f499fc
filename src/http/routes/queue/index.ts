import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import createQueueSlot from './create-queue-slot.js';
import deleteQueueSlot from './delete-queue-slot.js';
import getNextQueueSlot from './get-next-queue-slot.js';
import listQueueSlots from './list-queue-slots.js';
import previewQueue from './preview-queue.js';
import updateQueueSlot from './update-queue-slot.js';

export function registerQueueRoutes(app: App, ctx: AppContext): void {
  listQueueSlots(app, ctx);
  createQueueSlot(app, ctx);
  updateQueueSlot(app, ctx);
  deleteQueueSlot(app, ctx);
  previewQueue(app, ctx);
  getNextQueueSlot(app, ctx);
}
