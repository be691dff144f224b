import { diffArrays, diffLines, diffWordsWithSpace } from 'diff';
import { type ReactNode, useId, useMemo, useState } from 'react';
import { type EditorNode, type PageFields, editorToMarkdown, markdownToEditor } from '../../../src/document/editor-model';
import { renderNode } from './RenderedDocument';
import './editor.css';

/** One row of a block diff: a block kept, added, removed, or changed (before → after). */
export type BlockChange =
  | { kind: 'same'; block: EditorNode }
  | { kind: 'added'; block: EditorNode }
  | { kind: 'removed'; block: EditorNode }
  | { kind: 'changed'; before: EditorNode; after: EditorNode };

const blockMarkdown = (block: EditorNode) =>
  editorToMarkdown({
    doc: { type: 'doc', content: [block] },
    fields: {},
    frontMatter: null,
  });
const blocksOf = (markdown: string) =>
  (markdownToEditor(markdown).doc.content ?? []).filter((block) => block.type !== 'paragraph' || (block.content ?? []).length > 0);

/**
 * The top-level blocks of two Markdown texts, matched: blocks compare by their Markdown; a run of
 * removed blocks followed by a run of added ones pairs up as changed blocks.
 */
export function diffBlocks(before: string, after: string): BlockChange[] {
  const old = blocksOf(before);
  const next = blocksOf(after);
  const parts = diffArrays(old.map(blockMarkdown), next.map(blockMarkdown));
  const rows: BlockChange[] = [];
  let i = 0;
  let j = 0;
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    const count = part.value.length;
    if (!part.added && !part.removed) {
      for (let n = 0; n < count; n++) rows.push({ kind: 'same', block: next[j + n]! });
      i += count;
      j += count;
    } else if (part.removed) {
      const following = parts[p + 1];
      const added = following?.added ? following.value.length : 0;
      for (let n = 0; n < Math.max(count, added); n++) {
        if (n < count && n < added)
          rows.push({
            kind: 'changed',
            before: old[i + n]!,
            after: next[j + n]!,
          });
        else if (n < count) rows.push({ kind: 'removed', block: old[i + n]! });
        else rows.push({ kind: 'added', block: next[j + n]! });
      }
      i += count;
      j += added;
      if (added) p++;
    } else {
      for (let n = 0; n < count; n++) rows.push({ kind: 'added', block: next[j + n]! });
      j += count;
    }
  }
  return rows;
}

const plainText = (node: EditorNode): string =>
  node.text ?? (node.type === 'hardBreak' ? '\n' : (node.content ?? []).map(plainText).join(''));
const textBlock = (node: EditorNode) => node.type === 'paragraph' || node.type === 'heading';

/** A changed paragraph or heading shown once, with the words removed and added marked. */
function WordDiff({ before, after }: { before: EditorNode; after: EditorNode }) {
  const words = diffWordsWithSpace(plainText(before), plainText(after));
  const content = words.map((part, i) =>
    part.added ? <ins key={i}>{part.value}</ins> : part.removed ? <del key={i}>{part.value}</del> : part.value,
  );
  const level = after.type === 'heading' ? Math.min(6, Math.max(1, Number(after.attrs?.level ?? 1))) : 0;
  const Tag = level ? (`h${level}` as 'h1') : 'p';
  return <Tag>{content}</Tag>;
}

function Block({ kind, children }: { kind: 'same' | 'added' | 'removed' | 'changed'; children: ReactNode }) {
  const label = {
    same: null,
    added: 'Added',
    removed: 'Removed',
    changed: 'Changed',
  }[kind];
  return (
    <div className={`diff-block diff-${kind}`}>
      {label ? <span className="diff-label">{label}</span> : null}
      {kind === 'removed' ? (
        <del className="diff-removed-block">{children}</del>
      ) : kind === 'added' ? (
        <ins className="diff-added-block">{children}</ins>
      ) : (
        children
      )}
    </div>
  );
}

function InlineRows({ rows }: { rows: BlockChange[] }) {
  return (
    <>
      {rows.map((row, i) => {
        if (row.kind !== 'changed')
          return (
            <Block key={i} kind={row.kind}>
              {renderNode(row.block, 0)}
            </Block>
          );
        if (textBlock(row.before) && row.before.type === row.after.type && row.before.attrs?.level === row.after.attrs?.level) {
          return (
            <Block key={i} kind="changed">
              <WordDiff before={row.before} after={row.after} />
            </Block>
          );
        }
        return (
          <div key={i}>
            <Block kind="removed">{renderNode(row.before, 0)}</Block>
            <Block kind="added">{renderNode(row.after, 0)}</Block>
          </div>
        );
      })}
    </>
  );
}

function SplitRows({ rows }: { rows: BlockChange[] }) {
  return (
    <div className="diff-split" role="table" aria-label="Before and after">
      <div role="row" className="visually-hidden-row">
        <span role="columnheader">Before</span>
        <span role="columnheader">After</span>
      </div>
      {rows.map((row, i) => {
        const left = row.kind === 'changed' ? row.before : row.kind === 'added' ? null : row.block;
        const right = row.kind === 'changed' ? row.after : row.kind === 'removed' ? null : row.block;
        const leftKind = row.kind === 'same' ? 'same' : row.kind === 'changed' ? 'removed' : 'removed';
        const rightKind = row.kind === 'same' ? 'same' : 'added';
        return (
          <div role="row" key={i} style={{ display: 'contents' }}>
            <div role="cell">{left ? <Block kind={leftKind}>{renderNode(left, 0)}</Block> : null}</div>
            <div role="cell">{right ? <Block kind={rightKind}>{renderNode(right, 0)}</Block> : null}</div>
          </div>
        );
      })}
    </div>
  );
}

function FieldChanges({ before, after }: { before: PageFields; after: PageFields }) {
  const rows: ReactNode[] = [];
  if ((before.description ?? '') !== (after.description ?? '')) {
    rows.push(
      <li key="description">
        Description: <del>{before.description || '(none)'}</del> → <ins>{after.description || '(none)'}</ins>
      </li>,
    );
  }
  if (Boolean(before.hidden) !== Boolean(after.hidden))
    rows.push(<li key="hidden">{after.hidden ? 'Now hidden from the table of contents' : 'Now shown in the table of contents'}</li>);
  return rows.length > 0 ? <ul className="diff-fields">{rows}</ul> : null;
}

/** The Markdown of two texts line by line: removed lines with "−", added with "+", old and new line numbers. */
export function LineDiff({ before, after }: { before: string; after: string }) {
  const rows: ReactNode[] = [];
  let oldLine = 1;
  let newLine = 1;
  diffLines(before, after).forEach((part, p) => {
    const lines = part.value.replace(/\n$/, '').split('\n');
    lines.forEach((line, n) => {
      const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
      rows.push(
        <tr key={`${p}.${n}`} className={`line-${kind}`}>
          <td className="line-number">{part.added ? '' : oldLine++}</td>
          <td className="line-number">{part.removed ? '' : newLine++}</td>
          <td aria-label={kind === 'same' ? undefined : kind === 'added' ? 'Added' : 'Removed'}>
            {kind === 'added' ? '+' : kind === 'removed' ? '−' : ' '}
          </td>
          <td>{line}</td>
        </tr>,
      );
    });
  });
  return (
    <table className="line-diff">
      <thead className="visually-hidden-row">
        <tr>
          <th scope="col">Old line</th>
          <th scope="col">New line</th>
          <th scope="col">Change</th>
          <th scope="col">Text</th>
        </tr>
      </thead>
      <tbody>{rows}</tbody>
    </table>
  );
}

/**
 * The diff of two versions of a page: rendered (blocks added, removed and changed highlighted,
 * split or inline) and a Markdown line diff tab.
 */
export function Diff({ before, after, label = 'Changes' }: { before: string; after: string; label?: string }) {
  const [tab, setTab] = useState<'rendered' | 'markdown'>('rendered');
  const [layout, setLayout] = useState<'inline' | 'split'>('inline');
  const rows = useMemo(() => diffBlocks(before, after), [before, after]);
  const fields = useMemo(() => [markdownToEditor(before).fields, markdownToEditor(after).fields] as const, [before, after]);
  const id = useId();
  const unchanged = before === after;
  return (
    <section aria-label={label} className="diff">
      <div role="tablist" aria-label="Diff view" className="diff-tabs">
        <button
          type="button"
          role="tab"
          id={`${id}-r`}
          aria-controls={`${id}-rp`}
          aria-selected={tab === 'rendered'}
          onClick={() => setTab('rendered')}
        >
          Rendered
        </button>
        <button
          type="button"
          role="tab"
          id={`${id}-m`}
          aria-controls={`${id}-mp`}
          aria-selected={tab === 'markdown'}
          onClick={() => setTab('markdown')}
        >
          Markdown
        </button>
      </div>
      {tab === 'rendered' ? (
        <div className="diff-layout" role="group" aria-label="Layout">
          <button type="button" aria-pressed={layout === 'inline'} onClick={() => setLayout('inline')}>
            Inline
          </button>
          <button type="button" aria-pressed={layout === 'split'} onClick={() => setLayout('split')}>
            Split
          </button>
        </div>
      ) : null}
      {unchanged ? <p className="muted">No changes.</p> : null}
      {tab === 'rendered' ? (
        <div role="tabpanel" id={`${id}-rp`} aria-labelledby={`${id}-r`} className="rendered-diff">
          <FieldChanges before={fields[0]} after={fields[1]} />
          {layout === 'inline' ? <InlineRows rows={rows} /> : <SplitRows rows={rows} />}
        </div>
      ) : (
        <div role="tabpanel" id={`${id}-mp`} aria-labelledby={`${id}-m`}>
          <LineDiff before={before} after={after} />
        </div>
      )}
    </section>
  );
}
