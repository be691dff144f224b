import { Link, useParams, useSearchParams } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../../gql';
import { formatDate, Loaded } from '../../../lib/ui';
import { useCurrentOrg } from '../../Layout';

const ChangeRequestListQuery = graphql(`
  query SpaceChangeRequestList($spaceId: ID!, $status: String!) {
    space(id: $spaceId) {
      id
      title
      organization
      changeRequestList(status: $status, limit: 100) {
        count
        items { id number subject status updatedAt createdBy { id displayName } }
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

/** `/s/SPACE/~/changes`: the space's change requests of one status, most recently updated first. */
export function ChangeRequestList() {
  const { spaceId = '' } = useParams();
  const [search] = useSearchParams();
  const status = FILTERS.find((f) => f.status === search.get('status'))?.status ?? 'open';
  const [{ data, error }] = useQuery({ query: ChangeRequestListQuery, variables: { spaceId, status } });
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
          const items = [...space.changeRequestList.items].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
          if (!items.length) return <p>No {label.toLowerCase()} change requests.</p>;
          return (
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">
                  {label} change requests ({space.changeRequestList.count})
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
                  {items.map((cr) => (
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
                  ))}
                </tbody>
              </table>
            </div>
          );
        }}
      </Loaded>
    </section>
  );
}
