import { Link, useParams } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { appPath } from '../../lib/paths';
import { Loaded } from '../../lib/ui';
import { useCurrentOrg } from '../Layout';
import { SpaceList } from './SpaceList';
import { AdminNav } from '../admin/AdminNav';

const OrganizationQuery = graphql(`
  query Organization($id: ID!) {
    organization(id: $id) {
      id
      title
      permissions { admin listMembers listTeams }
      collections(nested: false, limit: 200) { items { id title description parent urls { app } } }
      spaces(limit: 500) { items { id title emoji visibility parent urls { app } } }
    }
  }
`);

/** An organization: its collections and the spaces outside any collection. */
export function Organization() {
  const { orgId = '' } = useParams();
  useCurrentOrg(orgId);
  const [{ data, error }] = useQuery({ query: OrganizationQuery, variables: { id: orgId } });
  return (
    <Loaded data={data} error={error}>
      {({ organization: org }) => (
        <section className="screen">
          <h1>{org.title}</h1>
          <AdminNav orgId={org.id} admin={org.permissions.admin} />
          <h2>Collections</h2>
          {org.collections.items.filter((c) => !c.parent).length ? (
            <ul className="card-list">
              {org.collections.items
                .filter((c) => !c.parent)
                .map((c) => (
                  <li key={c.id}>
                    <Link to={appPath(c.urls.app)}>
                      <span aria-hidden="true">📁 </span>
                      {c.title}
                    </Link>
                    {c.description && <p className="muted">{c.description}</p>}
                  </li>
                ))}
            </ul>
          ) : (
            <p className="muted">No collections.</p>
          )}
          <h2>Spaces</h2>
          <SpaceList spaces={org.spaces.items.filter((s) => !s.parent)} />
        </section>
      )}
    </Loaded>
  );
}
