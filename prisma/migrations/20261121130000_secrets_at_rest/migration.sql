-- Issue 13, finding 12: share-link keys, invite-link codes and PDF export ids are secrets; keep
-- only their SHA-256 (hex), as for API tokens. Existing rows are hashed here: their links keep
-- working. Their clear values cannot be shown again (the sealed copies are made by new rows only).

-- Share links: look up by the key's hash; `keySealed` (the key encrypted with the server key) is set by the app.
ALTER TABLE "SiteShareLink" ADD COLUMN "keyHash" TEXT, ADD COLUMN "keySealed" TEXT;
UPDATE "SiteShareLink" SET "keyHash" = encode(sha256(convert_to("key", 'UTF8')), 'hex');
ALTER TABLE "SiteShareLink" ALTER COLUMN "keyHash" SET NOT NULL;
DROP INDEX "SiteShareLink_key_key";
ALTER TABLE "SiteShareLink" DROP COLUMN "key";
CREATE UNIQUE INDEX "SiteShareLink_keyHash_key" ON "SiteShareLink"("keyHash");

-- Invite links: the id becomes the code's hash; `codeSealed` is set by the app.
ALTER TABLE "InviteLink" ADD COLUMN "codeSealed" TEXT;
UPDATE "InviteLink" SET "id" = encode(sha256(convert_to("id", 'UTF8')), 'hex');

-- PDF exports: the id becomes the hash of the id in the export's URL.
UPDATE "PdfExport" SET "id" = encode(sha256(convert_to("id", 'UTF8')), 'hex');

-- The server's own secret (created on first start unless LECTERN_SECRET_KEY is set).
CREATE TABLE "ServerSecret" (
    "name" TEXT NOT NULL,
    "value" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ServerSecret_pkey" PRIMARY KEY ("name")
);
