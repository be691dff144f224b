export function SiteDetail() {
  return <section className="screen"><h1>SiteDetail</h1></section>;
}
