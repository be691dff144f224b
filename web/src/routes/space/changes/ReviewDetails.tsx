import { useState } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../../../gql';
import { Outcome } from '../../../lib/ui';

const UpdateChangeRequest = graphql(`
  mutation UpdateChangeRequestFromApp($spaceId: ID!, $changeRequestId: String!, $input: UpdateChangeRequestInput!) {
    updateChangeRequest(spaceId: $spaceId, changeRequestId: $changeRequestId, input: $input) { id subject description status updatedAt }
  }
`);

type Node = { object?: string; leaves?: { text?: unknown }[]; nodes?: Node[] };

/** The plain text of a rich-text description (GitBook's JSON document), one line per block. */
export function descriptionText(doc: unknown): string {
  const lines: string[] = [];
  const inline = (node: Node): string =>
    node.object === 'text'
      ? (node.leaves ?? []).map((l) => (typeof l.text === 'string' ? l.text : '')).join('')
      : (node.nodes ?? []).map(inline).join('');
  const walk = (node: Node) => {
    const children = node.nodes ?? [];
    if (node.object === 'block' && !children.some((c) => c.object === 'block')) lines.push(inline(node));
    else for (const child of children) walk(child);
  };
  if (doc && typeof doc === 'object') walk(doc as Node);
  return lines.join('\n');
}

/** Plain text as a rich-text document: a paragraph per line (the server keeps the document as written). */
export function descriptionDocument(text: string) {
  const lines = text.split('\n').filter((line, i, all) => line.trim() || (i > 0 && i < all.length - 1));
  return {
    object: 'document',
    data: {},
    nodes: lines.map((line) => ({
      object: 'block',
      type: 'paragraph',
      data: {},
      nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: line, marks: [] }] }],
    })),
  };
}

interface Props {
  spaceId: string;
  changeRequest: { id: string; status: string; subject: string; description?: unknown };
  onChanged: () => void;
}

/** The change request's subject and description, editable while it is not merged; archive or reopen it. */
export function ReviewDetails({ spaceId, changeRequest: cr, onChanged }: Props) {
  const [subject, setSubject] = useState(cr.subject);
  const [description, setDescription] = useState(() => descriptionText(cr.description));
  const [saved, save] = useMutation(UpdateChangeRequest);
  const [statusChange, changeStatus] = useMutation(UpdateChangeRequest);
  const [done, setDone] = useState<string | null>(null);
  const writable = cr.status !== 'merged' && cr.status !== 'archived';

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setDone(null);
    const input = { subject: subject.trim(), description: description.trim() ? descriptionDocument(description) : null };
    const result = await save({ spaceId, changeRequestId: cr.id, input });
    if (result.data) {
      setDone('Subject and description saved.');
      onChanged();
    }
  };
  const setStatus = async (status: 'archived' | 'open') => {
    setDone(null);
    const result = await changeStatus({ spaceId, changeRequestId: cr.id, input: { status } });
    if (result.data) {
      setDone(status === 'archived' ? 'Change request archived.' : 'Change request reopened.');
      onChanged();
    }
  };

  return (
    <section aria-labelledby="cr-details-heading">
      <h2 id="cr-details-heading">Subject and description</h2>
      <form className="stack" onSubmit={submit}>
        <div className="field">
          <label htmlFor="cr-subject">Subject</label>
          <input id="cr-subject" value={subject} maxLength={100} onChange={(e) => setSubject(e.target.value)} disabled={!writable} />
        </div>
        <div className="field">
          <label htmlFor="cr-description">Description</label>
          <textarea
            id="cr-description"
            rows={4}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            disabled={!writable}
          />
        </div>
        <p>
          <button type="submit" disabled={!writable || saved.fetching} aria-busy={saved.fetching}>
            Save subject and description
          </button>{' '}
          {cr.status === 'archived' ? (
            <button type="button" onClick={() => setStatus('open')} disabled={statusChange.fetching}>
              Reopen change request
            </button>
          ) : (
            cr.status !== 'merged' && (
              <button type="button" onClick={() => setStatus('archived')} disabled={statusChange.fetching}>
                Archive change request
              </button>
            )
          )}
        </p>
      </form>
      <Outcome error={saved.error ?? statusChange.error} done={done} />
    </section>
  );
}
