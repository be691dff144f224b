import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import type { Role } from '../../gql/graphql';
import { Loaded, Outcome } from '../../lib/ui';
import { ROLES } from '../admin/OrgScreen';

const PermissionsQuery = graphql(`
  query SpacePermissions($spaceId: ID!) {
    space(id: $spaceId) { id title permissions { admin } }
    userPermissionsInSpace(spaceId: $spaceId, limit: 200) { items { permission user { id displayName email } } }
    teamPermissionsInSpace(spaceId: $spaceId, limit: 200) { items { permission team { id title } } }
  }
`);
const InviteToSpace = graphql(`
  mutation InviteToSpace($spaceId: ID!, $emails: [String!], $role: Role) { inviteToSpace(spaceId: $spaceId, input: { emails: $emails, role: $role }) }
`);
const UpdateUserPermission = graphql(`
  mutation UpdateUserPermissionInSpace($spaceId: ID!, $userId: ID!, $role: Role) {
    updateUserPermissionInSpace(spaceId: $spaceId, userId: $userId, input: { role: $role })
  }
`);
const RemoveUser = graphql(`
  mutation RemoveUserFromSpace($spaceId: ID!, $userId: ID!) { removeUserFromSpace(spaceId: $spaceId, userId: $userId) }
`);
const RemoveTeam = graphql(`
  mutation RemoveTeamFromSpace($spaceId: ID!, $teamId: ID!) { removeTeamFromSpace(spaceId: $spaceId, teamId: $teamId) }
`);

/** Who has a role on the space, given to them directly or to their team: grant by email, change, remove. */
export function SpacePermissions({ spaceId }: { spaceId: string }) {
  const [{ data, error }, refetch] = useQuery({ query: PermissionsQuery, variables: { spaceId } });
  const [invited, invite] = useMutation(InviteToSpace);
  const [updated, update] = useMutation(UpdateUserPermission);
  const [removedUser, removeUser] = useMutation(RemoveUser);
  const [removedTeam, removeTeam] = useMutation(RemoveTeam);
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState<Role>('read');
  const [done, setDone] = useState<string | null>(null);
  const after = (message: string) => (r: { error?: unknown }) => {
    if (r.error) return;
    setDone(message);
    refetch({ requestPolicy: 'network-only' });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite({ spaceId, emails: emails.split(/[\s,;]+/).filter(Boolean), role }).then(after('Access given'));
    setEmails('');
  };
  return (
    <section>
      <h1>Permissions</h1>
      <form className="inline" onSubmit={submit}>
        <div className="field">
          <label htmlFor="grant-emails">Email addresses</label>
          <input id="grant-emails" value={emails} onChange={(e) => setEmails(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="grant-role">Role in this space</label>
          <select id="grant-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Give access</button>
      </form>
      <Outcome error={invited.error ?? updated.error ?? removedUser.error ?? removedTeam.error} done={done} />
      <Loaded data={data} error={error}>
        {(d) => (
          <>
            <h2>People</h2>
            {d.userPermissionsInSpace.items.length ? (
              <ul>
                {d.userPermissionsInSpace.items.map(({ user, permission }) => (
                  <li key={user.id}>
                    {user.displayName} <span className="muted">{user.email}</span>{' '}
                    <select
                      aria-label={`Role of ${user.displayName} in this space`}
                      value={permission ?? ''}
                      onChange={(e) => {
                        const next = (e.target.value || null) as Role | null;
                        update({ spaceId, userId: user.id, role: next }).then(
                          after(`${user.displayName} is now ${next ?? 'without a role'}`),
                        );
                      }}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>{' '}
                    <button
                      type="button"
                      className="danger"
                      onClick={() => removeUser({ spaceId, userId: user.id }).then(after(`${user.displayName} removed`))}
                    >
                      Remove {user.displayName}
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No one has a role given on this space itself.</p>
            )}
            <h2>Teams</h2>
            {d.teamPermissionsInSpace.items.length ? (
              <ul>
                {d.teamPermissionsInSpace.items.map(({ team, permission }) => (
                  <li key={team.id}>
                    {team.title} — {permission}{' '}
                    <button
                      type="button"
                      className="danger"
                      onClick={() => removeTeam({ spaceId, teamId: team.id }).then(after(`${team.title} removed`))}
                    >
                      Remove {team.title}
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No team has a role on this space.</p>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}
