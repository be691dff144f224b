import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { appPath } from '../../lib/paths';
import { errorMessage } from '../../lib/client';
import { Highlighted } from './Highlighted';

const SearchQuery = graphql(`
  query OrganizationSearch($organizationId: ID!, $query: String!) {
    organization(id: $organizationId) {
      id
      search(query: $query, limit: 20) {
        items {
          id
          title
          pages { id title path urls { app } sections { id title body urls { app } } }
        }
      }
    }
  }
`);

interface Result {
  key: string;
  space: string;
  title: string;
  snippet: string;
  url: string;
}

/**
 * Search across the organization (Ctrl/⌘+K): a modal dialog with an input labelled "Search"
 * (a combobox over the results list); ↑/↓ choose a result, Enter opens its page, Escape closes.
 * Matching words in titles and snippets are highlighted.
 */
export function SearchDialog({ organizationId, onClose }: { organizationId: string; onClose: () => void }) {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const dialog = useRef<HTMLDialogElement>(null);
  const listId = useId();
  const titleId = useId();

  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);
  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), 200);
    return () => clearTimeout(timer);
  }, [text]);

  const [{ data, error, fetching }] = useQuery({ query: SearchQuery, variables: { organizationId, query }, pause: !query });
  const results: Result[] = query
    ? (data?.organization.search.items ?? []).flatMap((space) =>
        space.pages.map((page) => ({
          key: `${space.id}/${page.id}`,
          space: space.title,
          title: page.title,
          snippet: page.sections[0]?.body ?? '',
          url: page.urls.app,
        })),
      )
    : [];
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query is what moves the highlight back to the first result
  useEffect(() => setActive(0), [query]);

  const openResult = (result: Result | undefined) => {
    if (!result) return;
    onClose();
    navigate(appPath(result.url));
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') setActive((i) => Math.min(i + 1, results.length - 1));
    else if (event.key === 'ArrowUp') setActive((i) => Math.max(i - 1, 0));
    else if (event.key === 'Enter') openResult(results[active]);
    else return;
    event.preventDefault();
  };
  const words = query.split(/\s+/).filter((w) => w.length > 1 && !w.startsWith('-'));

  return (
    <dialog ref={dialog} className="search-dialog" aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      <h2 id={titleId} className="visually-hidden">
        Search the organization
      </h2>
      <div className="search-box">
        <label htmlFor={`${listId}-input`}>Search</label>
        <input
          id={`${listId}-input`}
          type="search"
          role="combobox"
          aria-expanded={results.length > 0}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={results[active] ? `${listId}-${active}` : undefined}
          autoComplete="off"
          autoFocus
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <p role="status" className="muted search-status">
        {query && fetching ? 'Searching…' : query && data ? `${results.length} ${results.length === 1 ? 'result' : 'results'}` : ''}
      </p>
      {error && (
        <p role="alert" className="error">
          {errorMessage(error)}
        </p>
      )}
      <ul id={listId} role="listbox" aria-label="Results" className="search-results">
        {results.map((r, i) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: an option of a combobox: the keyboard stays in the search field (arrows, Enter), as the ARIA combobox pattern has it
          <li
            key={r.key}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            className={i === active ? 'active' : undefined}
            onMouseEnter={() => setActive(i)}
            onClick={() => openResult(r)}
          >
            <span className="result-title">
              <Highlighted text={r.title} words={words} />
            </span>
            <span className="result-space muted">{r.space}</span>
            {r.snippet && (
              <span className="result-snippet">
                <Highlighted text={r.snippet} words={words} />
              </span>
            )}
          </li>
        ))}
      </ul>
    </dialog>
  );
}
