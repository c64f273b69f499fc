import { characters } from '../rules/text.js';

/** A Page post's text: 63,206 characters (platforms.md section 4). */
export const MESSAGE = characters(63206);
