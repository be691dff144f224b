import { useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { formatDate, Loaded } from '../../lib/ui';
import { OrgScreen } from './OrgScreen';

const AuditQuery = graphql(`
  query AuditLog($id: ID!, $page: String, $action: String) {
    organization(id: $id) {
      id
      auditEventActions { id label }
      auditEvents(limit: 50, page: $page, action: $action) {
        items { id action occurredAt interface actor { id label type } target { id label type } }
        next { page }
      }
    }
  }
`);

/** The audit log, newest first, 50 at a time, filtered by action. */
export function AuditLog() {
  return <OrgScreen title="Audit log">{(orgId) => <AuditTable orgId={orgId} />}</OrgScreen>;
}

function AuditTable({ orgId }: { orgId: string }) {
  const [pages, setPages] = useState<(string | null)[]>([null]);
  const [action, setAction] = useState('');
  const page = pages.at(-1) ?? null;
  const [{ data, error }] = useQuery({ query: AuditQuery, variables: { id: orgId, page, action: action || null } });
  return (
    <Loaded data={data} error={error}>
      {({ organization }) => (
        <>
          <div className="field">
            <label htmlFor="audit-action">Action</label>
            <select
              id="audit-action"
              value={action}
              onChange={(e) => {
                setAction(e.target.value);
                setPages([null]);
              }}
            >
              <option value="">All actions</option>
              {organization.auditEventActions.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.label}
                </option>
              ))}
            </select>
          </div>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">On</th>
                  <th scope="col">Through</th>
                </tr>
              </thead>
              <tbody>
                {organization.auditEvents.items.map((e) => (
                  <tr key={e.id}>
                    <td>{formatDate(e.occurredAt)}</td>
                    <td>{e.actor.label ?? e.actor.id}</td>
                    <td>{e.action}</td>
                    <td>{e.target.label ?? `${e.target.type} ${e.target.id}`}</td>
                    <td>{e.interface}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p>
            {pages.length > 1 && (
              <button type="button" onClick={() => setPages(pages.slice(0, -1))}>
                Newer
              </button>
            )}{' '}
            {organization.auditEvents.next && (
              <button type="button" onClick={() => setPages([...pages, organization.auditEvents.next!.page])}>
                Older
              </button>
            )}
          </p>
        </>
      )}
    </Loaded>
  );
}
