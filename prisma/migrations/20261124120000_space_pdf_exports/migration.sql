-- getSpacePDF: a PDF export of a space's main content has no change request.
ALTER TABLE "PdfExport" ALTER COLUMN "changeRequestId" DROP NOT NULL;
-- Exports go with their space (a change request's already did, through the change request).
DELETE FROM "PdfExport" e WHERE NOT EXISTS (SELECT 1 FROM "Space" s WHERE s.id = e."spaceId");
ALTER TABLE "PdfExport" ADD CONSTRAINT "PdfExport_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;
