import type { DocumentBlock, DocumentFragment, DocumentInline, DocumentText, MarkdownDocument, MarkdownSection } from './types.js';

// Plain text and sections of a produced document (search indexing, word counts).

export function inlineText(node: { nodes: (DocumentText | DocumentInline)[] }): string {
  return node.nodes
    .map((child) => {
      if (child.object === 'text') return child.leaves.map((l) => l.text).join('');
      if (child.type === 'inline-image') return child.data.alt ?? '';
      return inlineText(child);
    })
    .join('');
}

export const joinBlocks = (texts: string[]) => texts.filter((t) => t !== '').join('\n');

export function blockText(node: DocumentBlock | DocumentFragment): string {
  if (node.object === 'fragment') return joinBlocks(node.nodes.map(blockText));
  switch (node.type) {
    case 'paragraph':
    case 'heading-1':
    case 'heading-2':
    case 'heading-3':
    case 'code-line':
      return inlineText(node);
    case 'code':
      return node.nodes.map(blockText).join('\n');
    case 'divider':
      return '';
    case 'image':
      return node.data.alt ?? '';
    case 'table': {
      const { view, records, definition } = node.data;
      const fragments = new Map(node.fragments.map((f) => [f.fragment, f]));
      const header = view.columns.map((c) => definition[c]?.title ?? '').join('\t');
      const rows = Object.values(records)
        .sort((a, b) => (a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : 0))
        .map((record) =>
          view.columns
            .map((c) => {
              const name = record.values[c];
              const fragment = name === undefined ? undefined : fragments.get(name);
              return fragment ? blockText(fragment).split('\n').join(' ') : '';
            })
            .join('\t')
            .trimEnd(),
        );
      return joinBlocks([header.trim() === '' ? '' : header, ...rows]);
    }
    default:
      return joinBlocks((node.nodes as DocumentBlock[]).map(blockText));
  }
}

export function sectionsOf(document: MarkdownDocument): MarkdownSection[] {
  const sections: { id: string; title: string; parts: string[] }[] = [{ id: '', title: '', parts: [] }];
  for (const node of document.nodes) {
    if (node.type === 'heading-1' || node.type === 'heading-2' || node.type === 'heading-3') {
      sections.push({ id: node.meta.id, title: inlineText(node).trim(), parts: [] });
    } else {
      sections[sections.length - 1]!.parts.push(blockText(node));
    }
  }
  const result = sections.map(({ id, title, parts }) => ({ id, title, body: joinBlocks(parts) }));
  // The text before the first heading is a section only when there is some.
  return result[0]!.body === '' ? result.slice(1) : result;
}

/** Plain text of a rich-text document (translation instructions, merge-rule checks). */
export function documentText(doc: unknown): string {
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const n = node as { object?: string; leaves?: { text?: unknown }[]; nodes?: unknown[]; fragments?: unknown[] };
    if (n.object === 'text') out.push((n.leaves ?? []).map((l) => (typeof l.text === 'string' ? l.text : '')).join(''));
    for (const child of n.nodes ?? []) walk(child);
    for (const fragment of n.fragments ?? []) walk(fragment);
    if (n.object === 'block') out.push('\n');
  };
  walk(doc);
  return out
    .join('')
    .replace(/\n{2,}/g, '\n')
    .trim();
}
