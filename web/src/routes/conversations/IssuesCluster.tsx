import { useParams } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { formatDate, Loaded } from '../../lib/ui';
import { useCurrentOrg } from '../Layout';

const ClusterQuery = graphql(`
  query IssuesClusterScreen($organizationId: ID!, $id: ID!) {
    organization(id: $organizationId) {
      id
      issuesCluster(id: $id) { id label summary impact muted updatedAt weeklyPulse }
    }
  }
`);

/** An issues cluster of the organization's support conversations (its `urls.app`). */
export function IssuesCluster() {
  const { orgId = '', clusterId = '' } = useParams();
  useCurrentOrg(orgId);
  const [{ data, error }] = useQuery({ query: ClusterQuery, variables: { organizationId: orgId, id: clusterId } });
  return (
    <section className="screen">
      <Loaded data={data} error={error}>
        {({ organization: { issuesCluster: c } }) => (
          <>
            <h1>{c.label}</h1>
            <p>
              Impact: {c.impact}
              {c.muted && ' (muted)'} · updated {formatDate(c.updatedAt)}
            </p>
            <p>{c.summary}</p>
            <p className="muted">Issues in the past 13 weeks, oldest first: {c.weeklyPulse.join(', ')}</p>
          </>
        )}
      </Loaded>
    </section>
  );
}
