import { type FormEvent, useEffect, useId, useMemo, useRef, useState } from 'react';

/** A page of the space a link may point to. */
export interface LinkablePage {
  id: string;
  title: string;
  /** Where the page sits in the space (e.g. "guides/install"), shown to tell same-titled pages apart. */
  path?: string;
}

/** How Lectern's Markdown links to a page of the same space: by id, so a rename or move keeps the link. */
export const pageHref = (page: LinkablePage) => `/pages/${encodeURIComponent(page.id)}`;

const pageIdOf = (href: string) => {
  const match = href.match(/^\/pages\/([^/#?]+)$/);
  return match ? decodeURIComponent(match[1]!) : undefined;
};

/** Schemes a link may use (what the server accepts: no javascript:, vbscript: or data:). */
const unsafe = (href: string) => /^\s*(javascript|vbscript|data):/i.test(href.replace(/[\t\n\r]/g, ''));

/**
 * The link dialog (Ctrl+K): a URL, or a page of the space picked by title. `href` is the current
 * link's target ('' for a new one); `onSubmit('')` removes the link.
 */
export function LinkDialog({
  href,
  pages,
  onSubmit,
  onClose,
}: {
  href: string;
  pages: LinkablePage[];
  onSubmit: (href: string) => void;
  onClose: () => void;
}) {
  const currentPage = pageIdOf(href);
  const [kind, setKind] = useState<'url' | 'page'>(currentPage ? 'page' : 'url');
  const [url, setUrl] = useState(currentPage ? '' : href);
  const [query, setQuery] = useState('');
  const [pageId, setPageId] = useState(currentPage ?? '');
  const [error, setError] = useState<string | null>(null);
  const dialog = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const matching = useMemo(() => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return pages.filter((page) => words.every((word) => `${page.title} ${page.path ?? ''}`.toLowerCase().includes(word))).slice(0, 50);
  }, [pages, query]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: another kind shows another field, which takes the focus
  useEffect(() => {
    dialog.current?.querySelector<HTMLElement>('input:not([type="radio"])')?.focus();
  }, [kind]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (kind === 'page') {
      const page = pages.find((p) => p.id === pageId);
      if (!page) return setError('Pick a page.');
      return onSubmit(pageHref(page));
    }
    const target = url.trim();
    if (!target) return setError('Enter a URL.');
    if (unsafe(target)) return setError('This kind of link is not allowed.');
    onSubmit(/^[a-z][a-z0-9+.-]*:|^[/#.?]/i.test(target) ? target : `https://${target}`);
  };

  return (
    <div className="editor-dialog-backdrop">
      <div
        ref={dialog}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className="editor-dialog"
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.stopPropagation();
            onClose();
          }
        }}
      >
        <h2 id={titleId}>Link</h2>
        <form onSubmit={submit}>
          <fieldset>
            <legend>Link to</legend>
            <label>
              <input type="radio" name="link-kind" checked={kind === 'url'} onChange={() => setKind('url')} /> A URL
            </label>
            <label>
              <input type="radio" name="link-kind" checked={kind === 'page'} onChange={() => setKind('page')} /> A page of this space
            </label>
          </fieldset>
          {kind === 'url' ? (
            <label>
              URL
              <input type="text" inputMode="url" value={url} onChange={(event) => setUrl(event.target.value)} placeholder="https://" />
            </label>
          ) : (
            <>
              <label>
                Find a page
                <input type="search" value={query} onChange={(event) => setQuery(event.target.value)} />
              </label>
              <ul role="listbox" aria-label="Pages" className="editor-page-list">
                {matching.map((page) => (
                  <li
                    key={page.id}
                    role="option"
                    aria-selected={page.id === pageId}
                    tabIndex={0}
                    onClick={() => setPageId(page.id)}
                    onKeyDown={(event) => {
                      if (event.key === 'Enter' || event.key === ' ') {
                        event.preventDefault();
                        setPageId(page.id);
                      }
                    }}
                  >
                    {page.title}
                    {page.path ? <span className="muted"> {page.path}</span> : null}
                  </li>
                ))}
                {matching.length === 0 ? <li className="muted">No page matches.</li> : null}
              </ul>
            </>
          )}
          {error ? (
            <p role="alert" className="error">
              {error}
            </p>
          ) : null}
          <div className="editor-dialog-actions">
            <button type="submit">Apply</button>
            {href ? (
              <button type="button" onClick={() => onSubmit('')}>
                Remove link
              </button>
            ) : null}
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
