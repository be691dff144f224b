import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import { formatDate, Loaded, Outcome } from '../../lib/ui';

const TokensQuery = graphql(`
  query ViewerApiTokens { viewerApiTokens { id label createdAt lastUsedAt } }
`);
const CreateToken = graphql(`
  mutation CreateApiToken($label: String!) { createApiToken(label: $label) { token apiToken { id label createdAt } } }
`);
const RevokeToken = graphql(`
  mutation RevokeApiToken($id: ID!) { revokeApiToken(id: $id) }
`);

/** Personal API tokens: a new one is shown once (only its hash is kept), any can be revoked. */
export function ApiTokens() {
  const [{ data, error }, refetch] = useQuery({ query: TokensQuery });
  const [created, create] = useMutation(CreateToken);
  const [revoked, revoke] = useMutation(RevokeToken);
  const [label, setLabel] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await create({ label });
    if (r.data) {
      setShown(r.data.createApiToken.token);
      setLabel('');
      reload();
    }
  };
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      <form className="inline" onSubmit={submit}>
        <div className="field">
          <label htmlFor="token-label">Token name</label>
          <input id="token-label" value={label} onChange={(e) => setLabel(e.target.value)} required maxLength={100} />
        </div>
        <button type="submit">Create token</button>
      </form>
      <Outcome error={created.error ?? revoked.error} />
      {shown && (
        <div role="status">
          <p>Your new token — copy it now, it is not shown again:</p>
          <output className="token-once" aria-label="New API token">
            {shown}
          </output>
          <button type="button" onClick={() => setShown(null)}>
            I have copied it
          </button>
        </div>
      )}
      <Loaded data={data} error={error}>
        {({ viewerApiTokens }) =>
          viewerApiTokens.length ? (
            <ul>
              {viewerApiTokens
                .map(({ label: named, ...t }) => ({ ...t, label: named ?? 'Unnamed token' }))
                .map((t) => (
                  <li key={t.id}>
                    {t.label}{' '}
                    <span className="muted">
                      — created {formatDate(t.createdAt)}, last used {formatDate(t.lastUsedAt)}
                    </span>{' '}
                    <button
                      type="button"
                      className="danger"
                      onClick={async () => {
                        if (!confirm(`Revoke the token ${t.label}? Programs using it stop working.`)) return;
                        if (!(await revoke({ id: t.id })).error) reload();
                      }}
                    >
                      Revoke {t.label}
                    </button>
                  </li>
                ))}
            </ul>
          ) : (
            <p className="muted">No API tokens.</p>
          )
        }
      </Loaded>
    </section>
  );
}
