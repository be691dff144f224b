-- CreateTable
CREATE TABLE "SitePublishingAuth" (
    "siteId" TEXT NOT NULL,
    "keySealed" TEXT,
    "backend" TEXT NOT NULL DEFAULT 'custom',
    "fallbackURL" TEXT,
    "logoutURL" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SitePublishingAuth_pkey" PRIMARY KEY ("siteId")
);

-- AddForeignKey
ALTER TABLE "SitePublishingAuth" ADD CONSTRAINT "SitePublishingAuth_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;
