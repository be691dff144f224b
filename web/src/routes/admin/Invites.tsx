export function Invites() {
  return <section className="screen"><h1>Invites</h1></section>;
}
