/** The rich-text document model (GitBook's JSONDocument subset) and what parsing a Markdown body yields. */

/** `data.schemaVersion` of the documents produced here. */
export const DOCUMENT_SCHEMA_VERSION = 1;

// ---------------------------------------------------------------------------------------------
// Document types (the subset of GitBook's JSONDocument this module produces).
// ---------------------------------------------------------------------------------------------

type Empty = Record<string, never>;

export type DocumentMarkType = 'bold' | 'italic' | 'strikethrough' | 'code' | 'superscript';

export interface DocumentMark {
  object: 'mark';
  type: DocumentMarkType;
  data: Empty;
}

export interface DocumentLeaf {
  object: 'leaf';
  text: string;
  marks: DocumentMark[];
}

export interface DocumentText {
  object: 'text';
  key: string;
  leaves: DocumentLeaf[];
}

export interface ContentRefURL {
  kind: 'url';
  url: string;
}

export interface DocumentInlineImage {
  object: 'inline';
  type: 'inline-image';
  key: string;
  isVoid: true;
  data: { ref: ContentRefURL; alt?: string; caption?: string };
}

export interface DocumentInlineLink {
  object: 'inline';
  type: 'link';
  key: string;
  isVoid: false;
  data: { ref: ContentRefURL };
  nodes: (DocumentText | DocumentInlineImage)[];
}

export type DocumentInline = DocumentInlineLink | DocumentInlineImage;

export interface DocumentBlockParagraph {
  object: 'block';
  type: 'paragraph';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: (DocumentText | DocumentInline)[];
}

export interface DocumentBlockHeading {
  object: 'block';
  type: 'heading-1' | 'heading-2' | 'heading-3';
  key: string;
  isVoid: false;
  data: Empty;
  /** `meta.id`: the heading's anchor (github-slugger style, unique within the page). */
  meta: { id: string };
  nodes: (DocumentText | DocumentInline)[];
}

export interface DocumentBlockListUnordered {
  object: 'block';
  type: 'list-unordered';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: DocumentBlockListItem[];
}

export interface DocumentBlockListOrdered {
  object: 'block';
  type: 'list-ordered';
  key: string;
  isVoid: false;
  data: { start?: number };
  nodes: DocumentBlockListItem[];
}

export interface DocumentBlockListTasks {
  object: 'block';
  type: 'list-tasks';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: DocumentBlockListItem[];
}

export interface DocumentBlockDivider {
  object: 'block';
  type: 'divider';
  key: string;
  isVoid: true;
  data: Empty;
}

export type DocumentBlockEssential =
  | DocumentBlockParagraph
  | DocumentBlockHeading
  | DocumentBlockListOrdered
  | DocumentBlockListUnordered
  | DocumentBlockListTasks
  | DocumentBlockDivider;

export interface DocumentBlockListItem {
  object: 'block';
  type: 'list-item';
  key: string;
  isVoid: false;
  data: { checked?: boolean };
  nodes: (DocumentBlockEssential | DocumentBlockCode | DocumentBlockQuote | DocumentBlockTable)[];
}

export interface DocumentBlockQuote {
  object: 'block';
  type: 'blockquote';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: (DocumentBlockEssential | DocumentBlockQuote)[];
}

export interface DocumentBlockCodeLine {
  object: 'block';
  type: 'code-line';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: DocumentText[];
}

export interface DocumentBlockCode {
  object: 'block';
  type: 'code';
  key: string;
  isVoid: false;
  data: { syntax?: string };
  nodes: DocumentBlockCodeLine[];
}

export interface DocumentFragment {
  object: 'fragment';
  key: string;
  fragment: string;
  nodes: DocumentBlockParagraph[];
}

export interface DocumentBlockImage {
  object: 'block';
  type: 'image';
  key: string;
  isVoid: true;
  data: { ref: ContentRefURL; alt?: string };
  /** The image title, if any, as a `caption` fragment. */
  fragments: (DocumentFragment & { fragment: 'caption' })[];
}

export interface DocumentBlockImages {
  object: 'block';
  type: 'images';
  key: string;
  isVoid: false;
  data: Empty;
  nodes: DocumentBlockImage[];
}

export interface DocumentTableDefinitionText {
  id: string;
  title: string;
  type: 'text';
  textAlignment: 'left' | 'center' | 'right';
}

export interface DocumentTableRecord {
  orderIndex: string;
  /** column id → name of the fragment holding the cell's content */
  values: Record<string, string>;
}

/** A GFM table: GitBook's grid table; each cell's content is a fragment named in the record. */
export interface DocumentBlockTable {
  object: 'block';
  type: 'table';
  key: string;
  isVoid: true;
  data: {
    view: { type: 'grid'; columns: string[]; hideHeader: boolean };
    records: Record<string, DocumentTableRecord>;
    definition: Record<string, DocumentTableDefinitionText>;
  };
  fragments: DocumentFragment[];
}

export type DocumentBlockTopLevel =
  | DocumentBlockEssential
  | DocumentBlockQuote
  | DocumentBlockImages
  | DocumentBlockCode
  | DocumentBlockTable;

export type DocumentBlock = DocumentBlockTopLevel | DocumentBlockListItem | DocumentBlockCodeLine | DocumentBlockImage;

export interface MarkdownDocument {
  object: 'document';
  /**
   * `rawHtml: 'text'` when the Markdown held raw HTML: it is in the document as plain text leaves,
   * never as markup, and a renderer shows it as text (escaped), as the published site does.
   */
  data: { schemaVersion: number; rawHtml?: 'text' };
  nodes: DocumentBlockTopLevel[];
}

export interface MarkdownSection {
  /** '' for the text before the first heading, else the heading's anchor. */
  id: string;
  /** '' for the text before the first heading, else the heading's plain text. */
  title: string;
  /** Plain text (no markdown syntax) up to the next heading. */
  body: string;
}

export interface MarkdownLink {
  href: string;
  text: string;
}

export interface ParsedMarkdown {
  frontMatter: Record<string, unknown>;
  /** The markdown without its front matter. */
  body: string;
  document: MarkdownDocument;
  sections: MarkdownSection[];
  /** Every link and image target, in document order (reference-style ones resolved). */
  links: MarkdownLink[];
  /** All plain text of the body. */
  text: string;
  /** Link and image targets with a scheme a renderer must not follow (see unsafeUrl). */
  unsafeLinks: MarkdownLink[];
}
