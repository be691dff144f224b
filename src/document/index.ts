/**
 * The document mechanism: Markdown ↔ GitBook rich-text document conversion, text extraction,
 * sections and links, size/nesting limits, the one configured Markdown parser, and parsing off the
 * event loop for large bodies. It imports no module (only other mechanisms: errors, jobs); modules
 * import it from here.
 *
 * - types.ts: the document model and what parsing yields
 * - processor.ts: the unified/remark parser (GFM, YAML front matter)
 * - limits.ts: size and nesting, checked before parsing
 * - markdown.ts: Markdown → document, front matter, links, slugs
 * - json-markdown.ts: document (JSONDocument) → Markdown, the inverse, for documents written
 * - markdown-write.ts: the one serializer setting (mdast → Markdown)
 * - editor-model.ts: Markdown ↔ the app editor's ProseMirror JSON; browser-safe, so imported by
 *   its path (not from here: this index brings in server-only code)
 * - text.ts: plain text and sections of a document
 * - title.ts: a body's leading level-1 heading that repeats the page's title
 * - derivation.ts / body-cache.ts: what one parse of a body yields, kept per distinct body (the
 *   derivation cache every page read and write goes through)
 * - markdown-offload.ts / markdown-task.ts: large bodies parsed in a worker thread
 */
export * from './types.js';
export { markdownParseCount, markdownProcessor, markdownTree } from './processor.js';
export * from './limits.js';
export * from './markdown.js';
export { jsonDocumentToMarkdown } from './json-markdown.js';
export { documentText } from './text.js';
export { isTitleHeading, markdownWithoutTitleHeading, normalizedTitle, withoutTitleHeading } from './title.js';
export { htmlText } from './html-text.js';
export { OFFLOAD_CHARS } from './markdown-offload.js';
export { DerivedBody } from './derivation.js';
export * from './body-cache.js';
