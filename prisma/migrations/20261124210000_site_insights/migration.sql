-- CreateTable
CREATE TABLE "SiteInsightDay" (
    "siteId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "eventType" TEXT NOT NULL,
    "siteSectionId" TEXT NOT NULL DEFAULT '',
    "siteSpaceId" TEXT NOT NULL DEFAULT '',
    "spaceId" TEXT NOT NULL DEFAULT '',
    "pageId" TEXT NOT NULL DEFAULT '',
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "SiteInsightDay_pkey" PRIMARY KEY ("siteId","day","eventType","siteSectionId","siteSpaceId","spaceId","pageId")
);

-- AddForeignKey
ALTER TABLE "SiteInsightDay" ADD CONSTRAINT "SiteInsightDay_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;
