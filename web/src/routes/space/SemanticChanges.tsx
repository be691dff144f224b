const LABELS: Record<string, string> = {
  page_created: 'Page created',
  page_edited: 'Page edited',
  page_moved: 'Page moved',
  page_deleted: 'Page deleted',
  file_created: 'File added',
  file_edited: 'File changed',
  file_deleted: 'File removed',
};

interface SemanticChange {
  type?: string;
  page?: { title?: string; path?: string };
  file?: { name?: string };
}

/** A revision's semantic changes (GitBook's RevisionSemanticChange objects), one line each. */
export function SemanticChanges({ changes, more }: { changes: unknown; more?: number | null }) {
  const list = (Array.isArray(changes) ? changes : []).map((c) => ((c as { change?: SemanticChange }).change ?? c) as SemanticChange);
  if (!list.length) return <p className="muted">No changes to pages or files.</p>;
  return (
    <>
      <ul className="change-list">
        {list.map((c, i) => (
          <li key={i}>
            <span className={`badge change-${c.type ?? 'other'}`}>{LABELS[c.type ?? ''] ?? c.type ?? 'Change'}</span>{' '}
            {c.page?.title ?? c.file?.name ?? ''}
          </li>
        ))}
      </ul>
      {more ? <p className="muted">and {more} more</p> : null}
    </>
  );
}
