import type { ReactNode } from 'react';
import type { EditorMark, EditorNode } from '../../../src/document/editor-model';

/** Link and image targets that must not be followed when shown (the server refuses them too). */
const safeUrl = (url: unknown) =>
  typeof url === 'string' && !/^\s*(javascript|vbscript|data):/i.test(url.replace(/[\t\n\r]/g, '')) ? url : undefined;

function withMark(content: ReactNode, mark: EditorMark, key: number): ReactNode {
  switch (mark.type) {
    case 'bold':
      return <strong key={key}>{content}</strong>;
    case 'italic':
      return <em key={key}>{content}</em>;
    case 'strike':
      return <s key={key}>{content}</s>;
    case 'code':
      return <code key={key}>{content}</code>;
    case 'link':
      return (
        <a key={key} href={safeUrl(mark.attrs?.href)} title={typeof mark.attrs?.title === 'string' ? mark.attrs.title : undefined}>
          {content}
        </a>
      );
    default:
      return content;
  }
}

const children = (node: EditorNode) => (node.content ?? []).map((child, i) => renderNode(child, i));

/**
 * A read-only rendering of an editor document (the diff views show blocks with it). React escapes
 * every text, so user content is never markup.
 */
export function renderNode(node: EditorNode, key: number): ReactNode {
  switch (node.type) {
    case 'doc':
      return <div key={key}>{children(node)}</div>;
    case 'text':
      return (node.marks ?? []).reduceRight<ReactNode>((content, mark, i) => withMark(content, mark, i), node.text ?? '');
    case 'hardBreak':
      return <br key={key} />;
    case 'image':
      return (
        <img
          key={key}
          src={safeUrl(node.attrs?.src)}
          alt={String(node.attrs?.alt ?? '')}
          title={typeof node.attrs?.title === 'string' ? node.attrs.title : undefined}
        />
      );
    case 'rawInline':
      return (
        <code key={key} className="raw-markdown">
          {String(node.attrs?.markdown ?? '')}
        </code>
      );
    case 'paragraph':
      return <p key={key}>{children(node)}</p>;
    case 'heading': {
      const level = Math.min(6, Math.max(1, Number(node.attrs?.level ?? 1)));
      const Tag = `h${level}` as 'h1';
      return <Tag key={key}>{children(node)}</Tag>;
    }
    case 'blockquote':
      return <blockquote key={key}>{children(node)}</blockquote>;
    case 'bulletList':
      return <ul key={key}>{children(node)}</ul>;
    case 'orderedList':
      return (
        <ol key={key} start={Number(node.attrs?.start ?? 1)}>
          {children(node)}
        </ol>
      );
    case 'taskList':
      return (
        <ul key={key} className="task-list">
          {children(node)}
        </ul>
      );
    case 'listItem':
      return <li key={key}>{children(node)}</li>;
    case 'taskItem':
      return (
        <li key={key}>
          <span aria-label={node.attrs?.checked ? 'Done' : 'Not done'} role="img">
            {node.attrs?.checked ? '☑' : '☐'}
          </span>{' '}
          {children(node)}
        </li>
      );
    case 'codeBlock':
      return (
        <pre key={key} data-language={typeof node.attrs?.language === 'string' ? node.attrs.language : undefined}>
          <code>{(node.content ?? []).map((child) => child.text ?? '').join('')}</code>
        </pre>
      );
    case 'rawBlock':
      return (
        <pre key={key} className="raw-markdown">
          {(node.content ?? []).map((child) => child.text ?? '').join('')}
        </pre>
      );
    case 'horizontalRule':
      return <hr key={key} />;
    case 'table':
      return (
        <table key={key}>
          <tbody>{children(node)}</tbody>
        </table>
      );
    case 'tableRow':
      return <tr key={key}>{children(node)}</tr>;
    case 'tableHeader':
    case 'tableCell': {
      const Cell = node.type === 'tableHeader' ? 'th' : 'td';
      const align = node.attrs?.align;
      return (
        <Cell key={key} style={align === 'left' || align === 'center' || align === 'right' ? { textAlign: align } : undefined}>
          {(node.content ?? []).flatMap((paragraph) => (paragraph.content ?? []).map((child, i) => renderNode(child, i)))}
        </Cell>
      );
    }
    default:
      return null;
  }
}
