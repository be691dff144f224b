export function Teams() {
  return <section className="screen"><h1>Teams</h1></section>;
}
