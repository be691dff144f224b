import { Link } from 'react-router';

export function NotFound() {
  return (
    <section className="screen">
      <h1>Not found</h1>
      <p>
        Nothing lives at this address. <Link to="/">Back to your organizations</Link>
      </p>
    </section>
  );
}
