import { useParams } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { formatDate, Loaded } from '../../lib/ui';
import { useCurrentOrg } from '../Layout';

const SpecQuery = graphql(`
  query OpenAPISpecScreen($organizationId: ID!, $slug: String!) {
    organization(id: $organizationId) {
      id
      openAPISpec(slug: $slug) {
        id
        slug
        visibility
        processingState
        lastVersion
        lastProcessedAt
        lastProcessedErrorCount
        sourceURL
        urls { published }
        versions(limit: 20) { items { id createdAt } }
      }
    }
  }
`);

/** An OpenAPI specification (its `urls.app`): where it comes from, its processing, its versions. */
export function OpenAPISpec() {
  const { orgId = '', slug = '' } = useParams();
  useCurrentOrg(orgId);
  const [{ data, error }] = useQuery({ query: SpecQuery, variables: { organizationId: orgId, slug } });
  return (
    <section className="screen">
      <Loaded data={data} error={error}>
        {({ organization: { openAPISpec: spec } }) => (
          <>
            <h1>OpenAPI: {spec.slug}</h1>
            <dl>
              <dt>Visibility</dt>
              <dd>{spec.visibility}</dd>
              <dt>Processing</dt>
              <dd>
                {spec.processingState}, last {formatDate(spec.lastProcessedAt)}
                {spec.lastProcessedErrorCount > 0 && ` (${spec.lastProcessedErrorCount} errors)`}
              </dd>
              {spec.sourceURL && (
                <>
                  <dt>Source</dt>
                  <dd>{spec.sourceURL}</dd>
                </>
              )}
              {spec.urls.published && (
                <>
                  <dt>Published at</dt>
                  <dd>
                    <a href={spec.urls.published}>{spec.urls.published}</a>
                  </dd>
                </>
              )}
            </dl>
            <h2>Versions</h2>
            <ul>
              {spec.versions.items.map((v) => (
                <li key={v.id}>{formatDate(v.createdAt)}</li>
              ))}
            </ul>
          </>
        )}
      </Loaded>
    </section>
  );
}
