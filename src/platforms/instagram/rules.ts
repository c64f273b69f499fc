import { characters } from '../rules/text.js';

/** A caption: 2,200 characters (platforms.md, Instagram limits). */
export const CAPTION = characters(2200);
