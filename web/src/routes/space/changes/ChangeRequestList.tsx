import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../../gql';
import type { SpaceChangeRequestListQuery } from '../../../gql/graphql';
import { formatDate, Loaded } from '../../../lib/ui';
import { useCurrentOrg } from '../../Layout';

/** Change requests per page of the list: "More change requests" adds the next page below. */
const PAGE_SIZE = 25;

const ChangeRequestListQuery = graphql(`
  query SpaceChangeRequestList($spaceId: ID!, $status: String!, $limit: Int!, $page: String) {
    space(id: $spaceId) {
      id
      title
      organization
      changeRequestList(status: $status, limit: $limit, page: $page) {
        count
        items { id number subject status updatedAt createdBy { id displayName } }
        next { page }
      }
    }
  }
`);

/** The filters, as GitBook's list has them; the status is the list's `?status=` (open when absent). */
const FILTERS = [
  { status: 'open', label: 'Open' },
  { status: 'merged', label: 'Merged' },
  { status: 'archived', label: 'Archived' },
] as const;
type Status = (typeof FILTERS)[number]['status'];

/** `/s/SPACE/~/changes`: the space's change requests of one status, newest first, a page at a time. */
export function ChangeRequestList() {
  const { spaceId = '' } = useParams();
  const [search] = useSearchParams();
  const status = FILTERS.find((f) => f.status === search.get('status'))?.status ?? 'open';
  const [{ data, error }] = useQuery({ query: ChangeRequestListQuery, variables: { spaceId, status, limit: PAGE_SIZE } });
  useCurrentOrg(data?.space.organization);
  const label = FILTERS.find((f) => f.status === status)!.label;
  return (
    <section className="screen">
      <nav aria-label="Breadcrumbs" className="breadcrumbs">
        <Link to={`/s/${spaceId}`}>{data?.space.title || 'Space'}</Link>
      </nav>
      <h1>Change requests</h1>
      <nav aria-label="Change request status" className="tabs">
        <ul>
          {FILTERS.map((f) => (
            <li key={f.status}>
              <Link
                to={`/s/${spaceId}/~/changes${f.status === 'open' ? '' : `?status=${f.status}`}`}
                className={f.status === status ? 'active' : undefined}
                aria-current={f.status === status ? 'page' : undefined}
              >
                {f.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <Loaded data={data} error={error}>
        {({ space }) => {
          const list = space.changeRequestList;
          if (!list.items.length) return <p>No {label.toLowerCase()} change requests.</p>;
          return (
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">
                  {label} change requests ({list.count})
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Change request</th>
                    <th scope="col">Author</th>
                    <th scope="col">Status</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  <Rows spaceId={spaceId} items={list.items} />
                  {list.next && <LaterPages key={status} spaceId={spaceId} status={status} first={list.next.page} />}
                </tbody>
              </table>
            </div>
          );
        }}
      </Loaded>
    </section>
  );
}

type Item = SpaceChangeRequestListQuery['space']['changeRequestList']['items'][number];

function Rows({ spaceId, items }: { spaceId: string; items: Item[] }) {
  return items.map((cr) => (
    <tr key={cr.id}>
      <td>
        <Link to={`/s/${spaceId}/~/changes/${cr.number}`}>
          #{cr.number} {cr.subject || 'Untitled change request'}
        </Link>
      </td>
      <td>{cr.createdBy.displayName}</td>
      <td>
        <span className="badge">{cr.status}</span>
      </td>
      <td>
        <time dateTime={cr.updatedAt}>{formatDate(cr.updatedAt)}</time>
      </td>
    </tr>
  ));
}

/** The pages after the first, each added when asked for; the button asks for the next one. */
function LaterPages({ spaceId, status, first }: { spaceId: string; status: Status; first: string }) {
  const [pages, setPages] = useState<string[]>([]);
  return (
    <>
      {pages.map((page, i) => (
        <LaterPage
          key={page}
          spaceId={spaceId}
          status={status}
          page={page}
          last={i === pages.length - 1}
          onMore={(next) => setPages([...pages, next])}
        />
      ))}
      {!pages.length && <MoreRow onMore={() => setPages([first])} />}
    </>
  );
}

function LaterPage(props: { spaceId: string; status: Status; page: string; last: boolean; onMore: (next: string) => void }) {
  const { spaceId, status, page, last, onMore } = props;
  const [{ data, error }] = useQuery({ query: ChangeRequestListQuery, variables: { spaceId, status, limit: PAGE_SIZE, page } });
  if (error)
    return (
      <tr>
        <td colSpan={4} role="alert">
          Could not load more change requests: {error.message}
        </td>
      </tr>
    );
  if (!data) return null;
  const list = data.space.changeRequestList;
  return (
    <>
      <Rows spaceId={spaceId} items={list.items} />
      {last && list.next && <MoreRow onMore={() => onMore(list.next!.page)} />}
    </>
  );
}

function MoreRow({ onMore }: { onMore: () => void }) {
  return (
    <tr>
      <td colSpan={4}>
        <button type="button" onClick={onMore}>
          More change requests
        </button>
      </td>
    </tr>
  );
}
