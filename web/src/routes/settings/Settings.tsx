import { Profile } from './Profile';
import { ChangePassword } from './ChangePassword';
import { Sessions } from './Sessions';
import { ApiTokens } from './ApiTokens';

/** The person's own settings: profile, password, where they are signed in, personal API tokens. */
export function Settings() {
  return (
    <section className="screen">
      <h1>Settings</h1>
      <Profile />
      <ChangePassword />
      <Sessions />
      <ApiTokens />
    </section>
  );
}
