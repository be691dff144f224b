/**
 * How a `JSON` position of the schema says why it is JSON: content that is free-form by nature
 * (test/graphql/json-positions.test.ts asks every JSON position's description to begin so).
 */
export const FREE_DOC = 'Free-form: a rich-text document, a tree of blocks, inlines and marks open to every node type. ';
