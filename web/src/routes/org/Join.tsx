import { useNavigate, useParams } from 'react-router';
import { useMutation } from 'urql';
import { graphql } from '../../gql';
import { Outcome } from '../../lib/ui';

const JoinWithInvite = graphql(`
  mutation JoinWithInvite($organizationId: ID!, $inviteId: ID!) { joinOrganizationWithInvite(organizationId: $organizationId, inviteId: $inviteId) }
`);

/** An invite link's screen: joining is the signed-in person's explicit choice. */
export function Join() {
  const { orgId = '', inviteId = '' } = useParams();
  const navigate = useNavigate();
  const [joined, join] = useMutation(JoinWithInvite);
  return (
    <section className="screen">
      <h1>Join the organization</h1>
      <p>You were given a link to join an organization on Lectern.</p>
      <button
        type="button"
        className="primary"
        onClick={async () => {
          const r = await join({ organizationId: orgId, inviteId });
          if (!r.error) navigate(`/o/${orgId}`);
        }}
      >
        Join organization
      </button>
      <Outcome error={joined.error} />
    </section>
  );
}
