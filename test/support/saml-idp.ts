import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { SignedXml } from 'xml-crypto';

/**
 * An identity provider played by the test: its own RSA key pair and self-signed certificate, and
 * real signed SAML 2.0 Responses (the Assertion signed with xml-crypto, enveloped, exclusive c14n).
 */
export interface Idp {
  entityID: string;
  ssoURL: string;
  keyPem: string;
  certPem: string;
}

export function makeIdp(name: string): Idp {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 24 * 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const subject = [{ name: 'commonName', value: name }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  return {
    entityID: `https://${name.toLowerCase()}.idp.example/saml`,
    ssoURL: `https://${name.toLowerCase()}.idp.example/sso`,
    keyPem,
    certPem: forge.pki.certificateToPem(cert),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

export interface AssertionOptions {
  /** The service provider's entity id (our provider's `service.entityID`). */
  audience: string;
  recipient: string;
  nameID: string;
  email?: string;
  displayName?: string;
  inResponseTo?: string;
  issuer?: string;
  notOnOrAfter?: number;
  /** Sign with this identity provider's key instead. */
  signer?: Idp;
  /** Change the signed XML afterwards. */
  tamper?: (xml: string) => string;
}

export function samlResponse(idp: Idp, o: AssertionOptions): string {
  const now = Date.now();
  const issuer = o.issuer ?? idp.entityID;
  const until = iso(o.notOnOrAfter ?? now + 5 * 60_000);
  const irt = o.inResponseTo ? ` InResponseTo="${o.inResponseTo}"` : '';
  const attributes = [
    o.email ? `<saml:Attribute Name="email"><saml:AttributeValue>${o.email}</saml:AttributeValue></saml:Attribute>` : '',
    o.displayName ? `<saml:Attribute Name="displayName"><saml:AttributeValue>${o.displayName}</saml:AttributeValue></saml:Attribute>` : '',
  ].join('');
  const assertion =
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${iso(now)}">` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${o.nameID}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${until}" Recipient="${o.recipient}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(now - 60_000)}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="_s${randomBytes(8).toString('hex')}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
    `</saml:Assertion>`;
  const signer = o.signer ?? idp;
  const sig = new SignedXml({
    privateKey: signer.keyPem,
    publicCert: signer.certPem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(assertion, { location: { reference: "//*[local-name(.)='Issuer']", action: 'after' } });
  let signed = sig.getSignedXml();
  if (o.tamper) signed = o.tamper(signed);
  const response =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${iso(now)}" Destination="${o.recipient}"${irt}>` +
    `<saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${issuer}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>${signed}</samlp:Response>`;
  return Buffer.from(response).toString('base64');
}
