import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import type { Role } from '../../gql/graphql';
import { Loaded, Outcome } from '../../lib/ui';
import { OrgScreen, ROLES } from './OrgScreen';

const InvitesQuery = graphql(`
  query Invites($id: ID!) {
    organization(id: $id) { id inviteLinks invites(limit: 200) { items { id role level space { id title } collection { id title } } } }
  }
`);
const InviteByEmail = graphql(`
  mutation InviteByEmail($organizationId: ID!, $emails: [InviteeInput!]!, $role: Role) {
    inviteUsersToOrganization(organizationId: $organizationId, input: { emails: $emails, role: $role }) { invited users }
  }
`);
const CreateInviteLink = graphql(`
  mutation CreateInviteLink($organizationId: ID!, $role: Role) { createInviteLink(organizationId: $organizationId, input: { role: $role }) { id role } }
`);
const DeleteInviteLink = graphql(`
  mutation DeleteInviteLink($organizationId: ID!, $inviteId: ID!) { deleteInviteLink(organizationId: $organizationId, inviteId: $inviteId) }
`);

/** The address that joins the organization through an invite link (the app's join screen). */
const joinUrl = (orgId: string, inviteId: string) => `${location.origin}/app/o/${orgId}/join/${inviteId}`;

/** Invitations: people by email (with a role), and invite links to share (create, copy, delete). */
export function Invites() {
  return <OrgScreen title="Invites">{(orgId) => <InviteForms orgId={orgId} />}</OrgScreen>;
}

function InviteForms({ orgId }: { orgId: string }) {
  const [{ data, error }, refetch] = useQuery({ query: InvitesQuery, variables: { id: orgId } });
  const [invited, invite] = useMutation(InviteByEmail);
  const [created, createLink] = useMutation(CreateInviteLink);
  const [deleted, deleteLink] = useMutation(DeleteInviteLink);
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState<Role>('read');
  const [linkRole, setLinkRole] = useState<Role>('read');
  const [done, setDone] = useState<string | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });

  const sendInvites = async (e: FormEvent) => {
    e.preventDefault();
    const list = emails.split(/[\s,;]+/).filter(Boolean);
    const r = await invite({ organizationId: orgId, emails: list.map((email) => ({ email })), role });
    if (!r.error) {
      setDone(`${r.data?.inviteUsersToOrganization.invited ?? 0} invited`);
      setEmails('');
    }
  };
  const addLink = async (e: FormEvent) => {
    e.preventDefault();
    const r = await createLink({ organizationId: orgId, role: linkRole });
    if (!r.error) {
      setDone('Invite link created');
      reload();
    }
  };
  return (
    <>
      <h2>Invite by email</h2>
      <form className="stack" onSubmit={sendInvites}>
        <div className="field">
          <label htmlFor="invite-emails">Email addresses</label>
          <textarea id="invite-emails" value={emails} onChange={(e) => setEmails(e.target.value)} required rows={2} />
        </div>
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary">
          Send invitations
        </button>
      </form>
      <Outcome error={invited.error ?? created.error ?? deleted.error} done={done} />
      <h2>Invite links</h2>
      <form className="inline" onSubmit={addLink}>
        <div className="field">
          <label htmlFor="link-role">Role of people who join</label>
          <select id="link-role" value={linkRole} onChange={(e) => setLinkRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Create invite link</button>
      </form>
      <Loaded data={data} error={error}>
        {({ organization }) =>
          organization.invites.items.length ? (
            <ul>
              {organization.invites.items.map((inv) => (
                <li key={inv.id}>
                  <code>{joinUrl(orgId, inv.id)}</code> — {inv.role ?? inv.level ?? 'guest'}
                  {inv.space && ` (space ${inv.space.title})`}
                  {inv.collection && ` (collection ${inv.collection.title})`}{' '}
                  <button
                    type="button"
                    onClick={() => navigator.clipboard?.writeText(joinUrl(orgId, inv.id)).then(() => setDone('Link copied'))}
                  >
                    Copy link
                  </button>{' '}
                  <button
                    type="button"
                    className="danger"
                    onClick={async () => {
                      const r = await deleteLink({ organizationId: orgId, inviteId: inv.id });
                      if (!r.error) {
                        setDone('Invite link deleted');
                        reload();
                      }
                    }}
                  >
                    Delete link
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No invite links.</p>
          )
        }
      </Loaded>
    </>
  );
}
