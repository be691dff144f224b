import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import { Loaded, Outcome } from '../../lib/ui';
import { useCurrentOrg } from '../Layout';
import { AdminNav } from './AdminNav';

const SiteQuery = graphql(`
  query SiteDetail($organizationId: ID!, $siteId: ID!) {
    site(organizationId: $organizationId, id: $siteId) {
      id
      title
      published
      visibility
      urls { published }
      permissions { admin }
      siteSpaces(limit: 200) { items { id title space { id title } } }
      shareLinks(limit: 100) { items { id name active urls { published } } }
    }
    organization(id: $organizationId) { id permissions { admin } spaces(limit: 500) { items { id title } } }
  }
`);
const AddSiteSpace = graphql(`
  mutation AddSiteSpace($organizationId: ID!, $siteId: ID!, $spaceId: ID!) {
    addSiteSpace(organizationId: $organizationId, siteId: $siteId, input: { spaceId: $spaceId }) { id }
  }
`);
const PublishSite = graphql(`
  mutation PublishSite($organizationId: ID!, $id: ID!) { publishSite(organizationId: $organizationId, id: $id) { id published urls { published } } }
`);
const UnpublishSite = graphql(`
  mutation UnpublishSite($organizationId: ID!, $id: ID!) { unpublishSite(organizationId: $organizationId, id: $id) { id published } }
`);
const CreateShareLink = graphql(`
  mutation CreateShareLink($organizationId: ID!, $siteId: ID!, $name: String!) {
    createSiteShareLink(organizationId: $organizationId, siteId: $siteId, input: { name: $name }) { id }
  }
`);
const DeleteShareLink = graphql(`
  mutation DeleteShareLink($organizationId: ID!, $siteId: ID!, $id: ID!) { deleteSiteShareLink(organizationId: $organizationId, siteId: $siteId, id: $id) }
`);

/** A site: its spaces (add one), publication (publish, unpublish) and share links. */
export function SiteDetail() {
  const { orgId = '', siteId = '' } = useParams();
  useCurrentOrg(orgId);
  const vars = { organizationId: orgId, siteId };
  const [{ data, error }, refetch] = useQuery({ query: SiteQuery, variables: vars });
  const [added, addSpace] = useMutation(AddSiteSpace);
  const [published, publish] = useMutation(PublishSite);
  const [unpublished, unpublish] = useMutation(UnpublishSite);
  const [linked, createLink] = useMutation(CreateShareLink);
  const [unlinked, deleteLink] = useMutation(DeleteShareLink);
  const [spaceId, setSpaceId] = useState('');
  const [linkName, setLinkName] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const after = (message: string) => (r: { error?: unknown }) => {
    if (r.error) return;
    setDone(message);
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <section className="screen">
      <Loaded data={data} error={error}>
        {({ site, organization }) => {
          const inSite = new Set(site.siteSpaces.items.map((ss) => ss.space.id));
          const addable = organization.spaces.items.filter((s) => !inSite.has(s.id));
          const addSubmit = (e: FormEvent) => {
            e.preventDefault();
            if (spaceId) addSpace({ ...vars, spaceId }).then(after('Space added'));
          };
          const linkSubmit = (e: FormEvent) => {
            e.preventDefault();
            createLink({ ...vars, name: linkName }).then(after('Share link created'));
            setLinkName('');
          };
          return (
            <>
              <h1>{site.title}</h1>
              <AdminNav orgId={orgId} admin={organization.permissions.admin} />
              <p>
                {site.published ? 'Published' : 'Not published'} · {site.visibility}
                {site.published && site.urls.published && (
                  <>
                    {' '}
                    · <a href={site.urls.published}>Open the published site</a>
                  </>
                )}
              </p>
              {site.published ? (
                <button type="button" onClick={() => unpublish({ organizationId: orgId, id: site.id }).then(after('Site unpublished'))}>
                  Unpublish
                </button>
              ) : (
                <button
                  type="button"
                  className="primary"
                  onClick={() => publish({ organizationId: orgId, id: site.id }).then(after('Site published'))}
                >
                  Publish
                </button>
              )}
              <Outcome error={added.error ?? published.error ?? unpublished.error ?? linked.error ?? unlinked.error} done={done} />
              <h2>Spaces</h2>
              {site.siteSpaces.items.length ? (
                <ul>
                  {site.siteSpaces.items.map((ss) => (
                    <li key={ss.id}>{ss.title || ss.space.title}</li>
                  ))}
                </ul>
              ) : (
                <p className="muted">No spaces in this site yet.</p>
              )}
              <form className="inline" onSubmit={addSubmit}>
                <div className="field">
                  <label htmlFor="add-space">Space to add</label>
                  <select id="add-space" value={spaceId} onChange={(e) => setSpaceId(e.target.value)} required>
                    <option value="">Choose a space</option>
                    {addable.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.title}
                      </option>
                    ))}
                  </select>
                </div>
                <button type="submit">Add space</button>
              </form>
              <h2>Share links</h2>
              <form className="inline" onSubmit={linkSubmit}>
                <div className="field">
                  <label htmlFor="share-name">Share link name</label>
                  <input id="share-name" value={linkName} onChange={(e) => setLinkName(e.target.value)} required maxLength={50} />
                </div>
                <button type="submit">Create share link</button>
              </form>
              {site.shareLinks.items.length > 0 && (
                <ul>
                  {site.shareLinks.items.map((l) => (
                    <li key={l.id}>
                      {l.name} {l.urls.published && <code>{l.urls.published}</code>}{' '}
                      <button
                        type="button"
                        className="danger"
                        onClick={() => deleteLink({ ...vars, id: l.id }).then(after('Share link deleted'))}
                      >
                        Delete {l.name}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
