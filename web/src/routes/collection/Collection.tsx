import { Link, useParams } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { appPath } from '../../lib/paths';
import { Loaded } from '../../lib/ui';
import { useCurrentOrg } from '../Layout';
import { SpaceList } from '../org/SpaceList';

const CollectionQuery = graphql(`
  query Collection($id: ID!) {
    collection(id: $id) {
      id
      title
      description
      organization
      collections(limit: 200) { items { id title urls { app } } }
      spaces(limit: 500) { items { id title emoji visibility urls { app } } }
    }
  }
`);

/** A collection: the collections and spaces inside it. */
export function Collection() {
  const { collectionId = '' } = useParams();
  const [{ data, error }] = useQuery({ query: CollectionQuery, variables: { id: collectionId } });
  useCurrentOrg(data?.collection.organization);
  return (
    <Loaded data={data} error={error}>
      {({ collection }) => (
        <section className="screen">
          <nav aria-label="Breadcrumbs" className="breadcrumbs">
            <Link to={`/o/${collection.organization}`}>Organization</Link>
          </nav>
          <h1>{collection.title}</h1>
          {collection.description && <p>{collection.description}</p>}
          {collection.collections.items.length > 0 && (
            <>
              <h2>Collections</h2>
              <ul className="card-list">
                {collection.collections.items.map((c) => (
                  <li key={c.id}>
                    <Link to={appPath(c.urls.app)}>{c.title}</Link>
                  </li>
                ))}
              </ul>
            </>
          )}
          <h2>Spaces</h2>
          <SpaceList spaces={collection.spaces.items} />
        </section>
      )}
    </Loaded>
  );
}
