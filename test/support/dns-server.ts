import dgram from 'node:dgram';

/**
 * A tiny DNS server on loopback (UDP) answering TXT queries from `records` (name → values), NXDOMAIN
 * otherwise: enough for Lectern's resolver (`LECTERN_DNS_SERVER`) in tests, without the internet.
 */
export async function txtServer(records: Map<string, string[]>): Promise<{ address: string; close(): Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, peer) => {
    // Question: labels from offset 12, then QTYPE and QCLASS.
    const labels: string[] = [];
    let i = 12;
    while (query[i]! > 0) {
      labels.push(query.subarray(i + 1, i + 1 + query[i]!).toString('ascii'));
      i += query[i]! + 1;
    }
    const questionEnd = i + 5;
    const qtype = query.readUInt16BE(i + 1);
    const values = qtype === 16 ? records.get(labels.join('.').toLowerCase()) : undefined;
    const answers = (values ?? []).map((value) => {
      const text = Buffer.from(value, 'utf8');
      const rdata = Buffer.concat([Buffer.from([text.length]), text]);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // name: pointer to the question's
      rr.writeUInt16BE(16, 2); // TXT
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(0, 6); // TTL
      rr.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([rr, rdata]);
    });
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(values ? 0x8180 : 0x8183, 2); // response, recursion available; NXDOMAIN when unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, query.subarray(12, questionEnd), ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${socket.address().port}`, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}

type Caller = {
  call(method: string, path: string, opts?: { token?: string | null; body?: unknown }): Promise<{ status: number; body: any }>;
};

/**
 * Gives a site a custom hostname the way a user does: claim it (PATCH the site), publish
 * the DNS TXT challenge (here on a loopback DNS server), have Lectern check it.
 */
export async function proveHostname(h: Caller, token: string, sitePath: string, hostname: string): Promise<void> {
  const claimed = await h.call('PATCH', sitePath, { token, body: { hostname } });
  if (claimed.status !== 200) throw new Error(`claiming ${hostname}: ${claimed.status} ${JSON.stringify(claimed.body)}`);
  const claim = await h.call('GET', `/v1/custom-hostnames/${hostname}`, { token });
  const records = new Map([[claim.body.verification.name as string, [claim.body.verification.value as string]]]);
  const server = await txtServer(records);
  const previous = process.env.LECTERN_DNS_SERVER;
  process.env.LECTERN_DNS_SERVER = server.address;
  try {
    const proven = await h.call('PATCH', `/v1/custom-hostnames/${hostname}`, { token });
    if (proven.status !== 204) throw new Error(`proving ${hostname}: ${proven.status} ${JSON.stringify(proven.body)}`);
  } finally {
    if (previous === undefined) delete process.env.LECTERN_DNS_SERVER;
    else process.env.LECTERN_DNS_SERVER = previous;
    await server.close();
  }
}
