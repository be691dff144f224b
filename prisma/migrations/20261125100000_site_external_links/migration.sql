-- CreateTable
CREATE TABLE "SiteExternalLink" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "sectionGroupId" TEXT,
    "title" TEXT NOT NULL,
    "localizedTitle" JSONB,
    "description" TEXT,
    "localizedDescription" JSONB,
    "icon" TEXT,
    "url" TEXT NOT NULL,
    "draft" BOOLEAN NOT NULL DEFAULT false,
    "condition" TEXT,
    "position" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SiteExternalLink_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SiteExternalLink_siteId_sectionGroupId_position_idx" ON "SiteExternalLink"("siteId", "sectionGroupId", "position");

-- AddForeignKey
ALTER TABLE "SiteExternalLink" ADD CONSTRAINT "SiteExternalLink_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteExternalLink" ADD CONSTRAINT "SiteExternalLink_sectionGroupId_fkey" FOREIGN KEY ("sectionGroupId") REFERENCES "SiteSectionGroup"("id") ON DELETE SET NULL ON UPDATE CASCADE;

