-- CreateTable
CREATE TABLE "PdfExport" (
    "id" TEXT NOT NULL,
    "spaceId" TEXT NOT NULL,
    "changeRequestId" TEXT NOT NULL,
    "pageId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PdfExport_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PdfExport_createdAt_idx" ON "PdfExport"("createdAt");

-- AddForeignKey
ALTER TABLE "PdfExport" ADD CONSTRAINT "PdfExport_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;
