import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import { formatDate, Outcome } from '../../lib/ui';

const InvitationsQuery = graphql(`
  query PendingInvitations { invitations(limit: 100) { items { id organization role createdAt } } }
`);
const AcceptInvitation = graphql(`
  mutation AcceptInvitation($organizationId: ID!) { acceptOrganizationInvitation(organizationId: $organizationId) }
`);
const DeclineInvitation = graphql(`
  mutation DeclineInvitation($organizationId: ID!) { declineOrganizationInvitation(organizationId: $organizationId) }
`);

/** Invitations to organizations waiting for the person's answer (accepting is their consent to join). */
export function Invitations({ onJoined }: { onJoined: () => void }) {
  const [{ data }, refetch] = useQuery({ query: InvitationsQuery });
  const [accepted, accept] = useMutation(AcceptInvitation);
  const [declined, decline] = useMutation(DeclineInvitation);
  const items = data?.invitations.items ?? [];
  if (!items.length && !accepted.error && !declined.error) return null;
  const answered = (r: { error?: unknown }, joined: boolean) => {
    if (r.error) return;
    refetch({ requestPolicy: 'network-only' });
    if (joined) onJoined();
  };
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations</h2>
      <Outcome error={accepted.error ?? declined.error} />
      <ul>
        {items.map((inv) => (
          <li key={inv.id}>
            An invitation to an organization as {inv.role ?? 'guest'}, sent {formatDate(inv.createdAt)}{' '}
            <button
              type="button"
              className="primary"
              onClick={() => accept({ organizationId: inv.organization }).then((r) => answered(r, true))}
            >
              Accept
            </button>{' '}
            <button type="button" onClick={() => decline({ organizationId: inv.organization }).then((r) => answered(r, false))}>
              Decline
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
