// The conversations module's face: what other modules (and the entry points) may import from it.

export { shorten } from './extract.js';
export { wordCount } from './text.js';
