import { Link } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { appPath } from '../../lib/paths';
import { Loaded } from '../../lib/ui';
import { Invitations } from './Invitations';

const HomeQuery = graphql(`
  query Home {
    organizations(limit: 100) { items { id title urls { app } } }
  }
`);

/** The person's organizations, and the invitations to others waiting for an answer. */
export function Home() {
  const [{ data, error }, refetch] = useQuery({ query: HomeQuery });
  return (
    <section className="screen">
      <h1>Your organizations</h1>
      <Invitations onJoined={() => refetch({ requestPolicy: 'network-only' })} />
      <Loaded data={data} error={error}>
        {(d) =>
          d.organizations.items.length ? (
            <ul className="card-list">
              {d.organizations.items.map((org) => (
                <li key={org.id}>
                  <Link to={appPath(org.urls.app)}>{org.title}</Link>
                </li>
              ))}
            </ul>
          ) : (
            <p>You are not a member of any organization yet.</p>
          )
        }
      </Loaded>
    </section>
  );
}
