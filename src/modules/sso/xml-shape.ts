/**
 * A linear pre-check of a SAML response's XML before @node-saml parses it: @node-saml (xmldom +
 * xpath + xml-crypto) does work that grows quadratically with the number of elements (a 1.6 MB
 * response with many children blocked the event loop for 21.7 s). A real identity provider's
 * answer has a few dozen elements (a few hundred with many group attributes), so more than
 * MAX_ELEMENTS or a nesting deeper than MAX_DEPTH is refused without parsing. A DTD is refused too:
 * SAML has no use for one, and entity expansion is the classic XML bomb.
 * Measured (@node-saml 5): 500 sibling Assertions ≈ 100 ms on a loaded machine, 1,000 ≈ 130–350 ms,
 * 42,000 small elements (a 250 KB form) 112 s; 500 small ones cost 30–50 ms of CPU, 250 about 15. So: at
 * most 300 elements (room for ~250 attribute values, e.g. a long group list) and one assertion (the
 * library refuses several anyway, after the costly part).
 */
export const MAX_ELEMENTS = 300;
export const MAX_DEPTH = 64;

export type XmlShapeProblem = 'doctype' | 'elements' | 'depth' | 'assertions' | 'malformed';

/** `<saml:Assertion`, `<EncryptedAssertion`…: a response carries exactly one (the library's slowest shape is many). */
const ASSERTION_TAG = /^<(?:[\w.-]+:)?(?:Encrypted)?Assertion[\s/>]/;

/** One pass over the text; null when the shape is acceptable. Not a validator: the parser still is. */
export function xmlShapeProblem(xml: string): XmlShapeProblem | null {
  let elements = 0;
  let depth = 0;
  let assertions = 0;
  let i = xml.indexOf('<');
  while (i !== -1 && i < xml.length) {
    const next = xml.charCodeAt(i + 1);
    if (next === 0x21 /* ! */) {
      if (xml.startsWith('<!--', i)) i = skipPast(xml, '-->', i + 4);
      else if (xml.startsWith('<![CDATA[', i)) i = skipPast(xml, ']]>', i + 9);
      else return 'doctype'; // <!DOCTYPE, <!ENTITY, …
    } else if (next === 0x3f /* ? */) {
      i = skipPast(xml, '?>', i + 2);
    } else if (next === 0x2f /* / */) {
      depth--;
      i = skipPast(xml, '>', i + 2);
    } else {
      elements++;
      if (ASSERTION_TAG.test(xml.slice(i, i + 40)) && ++assertions > 1) return 'assertions';
      // The tag ends at the first '>' outside quotes ('<' may not appear in an attribute value).
      let j = i + 1;
      let quote = 0;
      for (; j < xml.length; j++) {
        const c = xml.charCodeAt(j);
        if (quote) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) quote = c;
        else if (c === 0x3e /* > */) break;
      }
      if (j >= xml.length) return 'malformed';
      if (xml.charCodeAt(j - 1) !== 0x2f /* self-closing "/>" */) depth++;
      if (elements > MAX_ELEMENTS) return 'elements';
      if (depth > MAX_DEPTH) return 'depth';
      i = j + 1;
    }
    if (i === -1) return 'malformed';
    i = xml.indexOf('<', i);
  }
  return null;
}

function skipPast(xml: string, end: string, from: number): number {
  const at = xml.indexOf(end, from);
  return at === -1 ? -1 : at + end.length;
}
