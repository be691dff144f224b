import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import { formatDate, Loaded, Outcome } from '../../lib/ui';

const SessionsQuery = graphql(`
  query ViewerSessions { viewerSessions { id createdAt lastSeenAt expiresAt userAgent current } }
`);
const RevokeSession = graphql(`
  mutation RevokeSession($id: ID!) { revokeSession(id: $id) }
`);

/** Where the person is signed in; any session but this one can be revoked (signing out is for this one). */
export function Sessions() {
  const [{ data, error }, refetch] = useQuery({ query: SessionsQuery });
  const [result, revoke] = useMutation(RevokeSession);
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <Outcome error={result.error} />
      <Loaded data={data} error={error}>
        {({ viewerSessions }) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Browser</th>
                  <th scope="col">Signed in</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {viewerSessions.map((s) => (
                  <tr key={s.id}>
                    <td>
                      {s.userAgent ?? 'Unknown browser'}
                      {s.current && <strong> (this browser)</strong>}
                    </td>
                    <td>{formatDate(s.createdAt)}</td>
                    <td>{formatDate(s.lastSeenAt)}</td>
                    <td>{formatDate(s.expiresAt)}</td>
                    <td>
                      {!s.current && (
                        <button
                          type="button"
                          className="danger"
                          onClick={async () => (await revoke({ id: s.id })).error || refetch({ requestPolicy: 'network-only' })}
                        >
                          Revoke session of {formatDate(s.createdAt)}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}
