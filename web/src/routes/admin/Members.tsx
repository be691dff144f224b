import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import type { Role } from '../../gql/graphql';
import { formatDate, Loaded, Outcome } from '../../lib/ui';
import { OrgScreen, ROLES } from './OrgScreen';

const MembersQuery = graphql(`
  query Members($id: ID!, $search: String) {
    organization(id: $id) {
      id
      members(limit: 200, search: $search) { count items { id role joinedAt lastSeenAt user { id displayName email } } }
    }
  }
`);
const UpdateMember = graphql(`
  mutation UpdateMember($organizationId: ID!, $userId: ID!, $role: Role) {
    updateMember(organizationId: $organizationId, userId: $userId, role: $role) { id role }
  }
`);
const CreateResetLink = graphql(`
  mutation CreatePasswordResetLink($organizationId: ID!, $userId: ID!) { createPasswordResetLink(organizationId: $organizationId, userId: $userId) { url expiresAt } }
`);
const RemoveMember = graphql(`
  mutation RemoveMember($organizationId: ID!, $userId: ID!) { removeMember(organizationId: $organizationId, userId: $userId) }
`);

/** Members and their roles: change a role, remove a member. */
export function Members() {
  return <OrgScreen title="Members">{(orgId) => <MemberTable orgId={orgId} />}</OrgScreen>;
}

function MemberTable({ orgId }: { orgId: string }) {
  const [search, setSearch] = useState('');
  const [{ data, error }, refetch] = useQuery({ query: MembersQuery, variables: { id: orgId, search: search || null } });
  const [updated, update] = useMutation(UpdateMember);
  const [removed, remove] = useMutation(RemoveMember);
  const [linked, createLink] = useMutation(CreateResetLink);
  const [done, setDone] = useState<string | null>(null);
  const [resetLink, setResetLink] = useState<{ name: string; url: string; expiresAt: string } | null>(null);
  return (
    <>
      <div className="field">
        <label htmlFor="member-search">Find a member</label>
        <input id="member-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
      </div>
      <Outcome error={updated.error ?? removed.error ?? linked.error} done={done} />
      {resetLink && (
        <div role="status">
          <p>
            A one-time link for {resetLink.name} to set a new password (valid until {formatDate(resetLink.expiresAt)}); send it to them:
          </p>
          <p className="token-once">{resetLink.url}</p>
        </div>
      )}
      <Loaded data={data} error={error}>
        {({ organization }) => (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Members ({organization.members.count})</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {organization.members.items.map((m) => (
                  <tr key={m.id}>
                    <td>{m.user.displayName}</td>
                    <td>{m.user.email}</td>
                    <td>
                      <select
                        aria-label={`Role of ${m.user.displayName}`}
                        value={m.role ?? ''}
                        onChange={async (e) => {
                          const role = (e.target.value || null) as Role | null;
                          const r = await update({ organizationId: orgId, userId: m.user.id, role });
                          if (!r.error) setDone(`${m.user.displayName} is now ${role ?? 'a guest'}`);
                        }}
                      >
                        <option value="">guest</option>
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>{formatDate(m.lastSeenAt)}</td>
                    <td>
                      <button
                        type="button"
                        onClick={async () => {
                          const r = await createLink({ organizationId: orgId, userId: m.user.id });
                          if (r.data) setResetLink({ name: m.user.displayName, ...r.data.createPasswordResetLink });
                        }}
                      >
                        Password link for {m.user.displayName}
                      </button>{' '}
                      <button
                        type="button"
                        className="danger"
                        onClick={async () => {
                          if (!confirm(`Remove ${m.user.displayName} from the organization?`)) return;
                          const r = await remove({ organizationId: orgId, userId: m.user.id });
                          if (!r.error) {
                            setDone(`${m.user.displayName} was removed`);
                            refetch({ requestPolicy: 'network-only' });
                          }
                        }}
                      >
                        Remove {m.user.displayName}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </>
  );
}
