export function Sites() {
  return <section className="screen"><h1>Sites</h1></section>;
}
