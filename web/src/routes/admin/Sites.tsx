import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import { appPath } from '../../lib/paths';
import { Loaded, Outcome } from '../../lib/ui';
import { OrgScreen } from './OrgScreen';

const SitesQuery = graphql(`
  query Sites($id: ID!) {
    organization(id: $id) { id sites(limit: 200) { items { id title published visibility siteSpaceCount urls { app published } } } }
  }
`);
const CreateSite = graphql(`
  mutation CreateSite($organizationId: ID!, $title: String!) { createSite(organizationId: $organizationId, input: { title: $title }) { id urls { app } } }
`);

/** The organization's sites: create one, open one. */
export function Sites() {
  return <OrgScreen title="Sites">{(orgId) => <SiteList orgId={orgId} />}</OrgScreen>;
}

function SiteList({ orgId }: { orgId: string }) {
  const navigate = useNavigate();
  const [{ data, error }] = useQuery({ query: SitesQuery, variables: { id: orgId } });
  const [created, create] = useMutation(CreateSite);
  const [title, setTitle] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await create({ organizationId: orgId, title });
    if (r.data) navigate(appPath(r.data.createSite.urls.app));
  };
  return (
    <>
      <form className="inline" onSubmit={submit}>
        <div className="field">
          <label htmlFor="site-title">Site title</label>
          <input id="site-title" value={title} onChange={(e) => setTitle(e.target.value)} required minLength={2} maxLength={128} />
        </div>
        <button type="submit" className="primary">
          Create site
        </button>
      </form>
      <Outcome error={created.error} />
      <Loaded data={data} error={error}>
        {({ organization }) =>
          organization.sites.items.length ? (
            <ul className="card-list">
              {organization.sites.items.map((site) => (
                <li key={site.id}>
                  <Link to={appPath(site.urls.app)}>{site.title}</Link>
                  <p className="muted">
                    {site.published ? 'Published' : 'Not published'} · {site.visibility} · {site.siteSpaceCount} spaces
                  </p>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No sites yet.</p>
          )
        }
      </Loaded>
    </>
  );
}
