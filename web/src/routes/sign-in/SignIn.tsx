import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import { safeNext } from '../../lib/paths';
import { Outcome } from '../../lib/ui';

const SignInOptionsQuery = graphql(`
  query SignInOptions { signInOptions { password oidc { label } } }
`);
const SignInMutation = graphql(`
  mutation SignIn($email: String!, $password: String!) { signIn(email: $email, password: $password) { id } }
`);

/**
 * Sign in with an email and a password (or the configured OpenID provider), then back to `next`.
 * The app is loaded afresh after signing in, so nothing read before (as nobody, or as someone
 * else) stays in its cache.
 */
export function SignIn() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const [{ data: options }] = useQuery({ query: SignInOptionsQuery });
  const [result, signIn] = useMutation(SignInMutation);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const r = await signIn({ email, password });
    if (r.data) location.assign(`/app${next === '/' ? '' : next}`);
  };
  const oidc = options?.signInOptions.oidc;
  return (
    <main id="main" className="sign-in">
      <h1>Sign in to Lectern</h1>
      {options?.signInOptions.password !== false && (
        <form className="stack" onSubmit={submit}>
          <div className="field">
            <label htmlFor="email">Email</label>
            <input id="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
          </div>
          <div className="field">
            <label htmlFor="password">Password</label>
            <input
              id="password"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
            />
          </div>
          <button type="submit" className="primary" disabled={result.fetching}>
            Sign in
          </button>
          <Outcome error={result.error} />
        </form>
      )}
      {oidc && (
        <p>
          <a className="button" href={`/auth/oidc/start?next=${encodeURIComponent(`/app${next === '/' ? '' : next}`)}`}>
            Sign in with {oidc.label}
          </a>
        </p>
      )}
    </main>
  );
}
